/**
 * `<name>.unpaid.csv`, beside the report that links it: the rows this batch did not pay and never
 * will by itself (failed, cancelled, expired, rejected, skipped), in the input's own columns, so that
 * a person corrects them and pays them again (`payouts retry BATCH --fix FILE` for the failed, cancelled
 * and expired ones; a new file for the others). Rows that may be paid (unknown, in flight), or that a
 * person settled (abandoned, refunded), are never in it: paying them again could pay twice.
 * Owner-only, as every output (AtomicFile.ts): it holds names and phone numbers.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Stream } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { formatAmount } from "../domain/Money.ts"
import { CSV_COLUMNS, META_PREFIX } from "../intake/CsvHeader.ts"
import { AMOUNT_AS_WRITTEN } from "../intake/Validate.ts"
import type { Row } from "../store/Model.ts"
import { DROPPED_STATES, type RowState, SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { StateStore } from "../store/StateStore.ts"
import { writeFileAtomic } from "./AtomicFile.ts"
import { quoteCsv } from "./CsvCells.ts"

export const UNPAID_STATES: ReadonlyArray<RowState> = [...SETTLED_FAILURE_STATES, ...DROPPED_STATES]

export const unpaidCsvPath = (reportPath: string): string => reportPath.replace(/\.report\.html$/, "") + ".unpaid.csv"

/** The `meta.*` columns the unpaid rows need, gathered while the report's pass sees them. */
export const makeUnpaidColumns = () => {
  const keys = new Set<string>()
  let rows = 0
  const add = (row: Row): void => {
    if (!UNPAID_STATES.includes(row.state)) return
    rows += 1
    for (const key of Object.keys(row.details)) if (key !== AMOUNT_AS_WRITTEN) keys.add(key)
  }
  return { add, rows: () => rows, keys: () => [...keys].sort() } as const
}

export type UnpaidColumns = ReturnType<typeof makeUnpaidColumns>

/** One row as the input wrote it: a rejected row's amount as written (it may not be a number). */
export const unpaidCells = (row: Row, keys: ReadonlyArray<string>): ReadonlyArray<string> => [
  row.rowId ?? "",
  row.state === "rejected" && row.details[AMOUNT_AS_WRITTEN] !== undefined ? row.details[AMOUNT_AS_WRITTEN] : row.amountMinor === null ? "" : formatAmount(row.amountMinor, row.currency),
  row.currency,
  row.operator,
  row.phone,
  row.name,
  row.email,
  row.description,
  ...keys.map((k) => row.details[k] ?? "")
]

// Cells quoted only where CSV needs it, never altered: what is fed back must be what the row held.
const line = (cells: ReadonlyArray<string>) => `${cells.map(quoteCsv).join(",")}\n`

/**
 * Writes the file from the store, streamed in file order; removes a stale one when nothing is left
 * unpaid (a resumed batch that paid its last rows). Answers whether a file is there.
 */
export const writeUnpaidCsv = (path: string, accountId: AccountId, batchId: BatchId, columns: UnpaidColumns) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    if (columns.rows() === 0) {
      yield* fs.remove(path).pipe(Effect.ignore)
      return false
    }
    const store = yield* StateStore
    const keys = columns.keys()
    const header = line([...CSV_COLUMNS, ...keys.map((k) => `${META_PREFIX}${k}`)])
    const rows = store.batch(accountId, batchId).streamRowsInStates(UNPAID_STATES).pipe(Stream.map((row) => line(unpaidCells(row, keys))))
    yield* writeFileAtomic(path, Stream.concat(Stream.make(header), rows))
    return true
  }).pipe(Effect.withSpan("Report.unpaidCsv"))
