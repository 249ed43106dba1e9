/**
 * The ledger `<name>.ledger.csv` and the summary `<name>.summary.json` (DESIGN.md section 9), both
 * rewritten atomically; the ledger is streamed, never built whole in memory.
 */
import type { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { DateTime, type Effect, Stream } from "effect"
import { formatAmount } from "../domain/Money.ts"
import { csvLine } from "./CsvCells.ts"
import { writeFileAtomic, writeTextAtomic } from "./AtomicFile.ts"

export const LEDGER_COLUMNS = [
  "line",
  "id",
  "operator",
  "currency",
  "amount",
  "phone",
  "name",
  "status",
  "reference",
  "fee",
  "attempts",
  "error",
  "submitted_at",
  "updated_at",
  // Added at the end (DESIGN 9 fixes the columns before): `payouts retry` links, `BATCH line N`.
  "retry_of",
  "retried_as"
] as const

export type Timestamp = DateTime.DateTime | Date | number | string

export interface LedgerRow {
  readonly line: number
  readonly id: string | null | undefined
  readonly operator: string
  readonly currency: string
  /** Minor units; absent for a rejected row whose amount did not parse. */
  readonly amountMinor: number | null | undefined
  /** Shown instead of `amountMinor` when set: a rejected row's amount exactly as the file wrote it. */
  readonly amountText?: string | undefined
  /** E.164, or the cell as read for a rejected row. */
  readonly phone: string
  readonly name: string
  readonly status: string
  readonly reference: string | null | undefined
  readonly feeMinor: number | null | undefined
  readonly attempts: number
  readonly error: string | null | undefined
  readonly submittedAt: Timestamp | null | undefined
  readonly updatedAt: Timestamp | null | undefined
  /** The parent row this row pays again (`payouts retry`, `--fix`): `BATCH line N`. */
  readonly retryOf?: string | undefined
  /** The child row that pays this one again: `BATCH line N`. */
  readonly retriedAs?: string | undefined
}

/** ISO 8601 in UTC; empty when unknown. */
export const formatTimestamp = (at: Timestamp | null | undefined): string => {
  if (at === null || at === undefined || at === "") return ""
  if (typeof at === "string") return at
  if (DateTime.isDateTime(at)) return DateTime.formatIso(at)
  const date = typeof at === "number" ? new Date(at) : at
  return Number.isNaN(date.getTime()) ? "" : date.toISOString()
}

const money = (minor: number | null | undefined, currency: string): string =>
  minor === null || minor === undefined ? "" : formatAmount(minor, currency)

export const ledgerCells = (row: LedgerRow): ReadonlyArray<string> => [
  String(row.line),
  row.id ?? "",
  row.operator,
  row.currency,
  row.amountText ?? money(row.amountMinor, row.currency),
  row.phone,
  row.name,
  row.status,
  row.reference ?? "",
  money(row.feeMinor, row.currency),
  String(row.attempts),
  row.error ?? "",
  formatTimestamp(row.submittedAt),
  formatTimestamp(row.updatedAt),
  row.retryOf ?? "",
  row.retriedAs ?? ""
]

export const ledgerHeaderLine = csvLine(LEDGER_COLUMNS)

/** The ledger's text, header first, then a line per row. */
export const ledgerText = <E, R>(rows: Stream.Stream<LedgerRow, E, R>): Stream.Stream<string, E, R> =>
  Stream.concat(Stream.make(ledgerHeaderLine), Stream.map(rows, (row) => csvLine(ledgerCells(row))))

export const writeLedger = <E, R>(
  path: string,
  rows: Stream.Stream<LedgerRow, E, R>
): Effect.Effect<void, E | PlatformError, FileSystem.FileSystem | R> => writeFileAtomic(path, ledgerText(rows))

/** Any JSON-serialisable object, pretty-printed. */
export const writeSummary = (
  path: string,
  summary: object
): Effect.Effect<void, PlatformError, FileSystem.FileSystem> => writeTextAtomic(path, `${JSON.stringify(summary, null, 2)}\n`)
