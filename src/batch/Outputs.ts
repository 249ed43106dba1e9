/**
 * What a run leaves beside its input: the ledger (streamed from the store), the summary JSON and the
 * errors file. Every file is replaced atomically, so a reader never sees half of one.
 */
import { Clock, DateTime, Effect, Stream } from "effect"
import { formatAmount } from "../domain/Money.ts"
import type { Row } from "../store/Model.ts"
import type { StateCounts } from "../store/RowState.ts"
import { StateStore } from "../store/StateStore.ts"
import { type RowError, writeErrorsFile } from "./Errors.ts"
import { type LedgerRow, writeLedger, writeSummary } from "./Ledger.ts"
import type { OutputPaths } from "./LedgerFile.ts"

export const ledgerRow = (row: Row): LedgerRow => ({
  line: row.line,
  id: row.rowId,
  operator: row.operator,
  currency: row.currency,
  amountMinor: row.amountMinor,
  phone: row.phone,
  name: row.name,
  status: row.state,
  reference: row.reference,
  feeMinor: row.feeMinor,
  attempts: row.attempts,
  // An alarmed row names why and every payout that may be its own, so finance sees it in the ledger.
  error:
    row.alarm === null
      ? row.error
      : `ALARM: ${row.alarm}${row.candidates !== null && row.candidates.length > 0 ? `; candidates: ${row.candidates.join(" ")}` : ""}${row.error === null ? "" : ` (last error: ${row.error})`}`,
  submittedAt: row.submittedAt,
  updatedAt: row.updatedAt
})

export const writeLedgerFromStore = (paths: OutputPaths, accountId: string, batchId: string) =>
  Effect.flatMap(StateStore, (store) => writeLedger(paths.ledger, Stream.map(store.streamRows(accountId, batchId), ledgerRow)))

export const writeErrors = (paths: OutputPaths, errors: ReadonlyArray<RowError>) =>
  writeErrorsFile(paths.errors, Stream.fromIterable(errors))

export interface CurrencyTotals {
  rows: number
  amount: string
  completed_amount: string
  fees: string
}

/** Per-currency totals: every row's amount, the completed rows' amount, and the fees charged. */
export const totalsByCurrency = (accountId: string, batchId: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    // Summed by the store: a million-row batch is not read back row by row for four figures.
    const totals = yield* store.currencyTotals(accountId, batchId)
    return Object.fromEntries(
      totals.map((t): [string, CurrencyTotals] => [
        t.currency,
        {
          rows: t.rows,
          amount: formatAmount(t.amountMinor, t.currency),
          completed_amount: formatAmount(t.completedMinor, t.currency),
          fees: formatAmount(t.feesMinor, t.currency)
        }
      ])
    )
  })

export interface SummaryInput {
  readonly batchId: string
  readonly file: string
  readonly startedAt: number
  readonly counts: StateCounts | Readonly<Record<string, number>>
  readonly totals: Readonly<Record<string, CurrencyTotals>>
  readonly exitCode: number
  readonly outcome: string
  readonly alarms?: ReadonlyArray<{ readonly line: number; readonly reason?: string; readonly references: ReadonlyArray<string> }>
  readonly extra?: Readonly<Record<string, unknown>>
}

export const makeSummary = (input: SummaryInput) =>
  Effect.map(Clock.currentTimeMillis, (now) => ({
    batch_id: input.batchId,
    file: input.file,
    outcome: input.outcome,
    started_at: DateTime.formatIso(DateTime.unsafeMake(input.startedAt)),
    finished_at: DateTime.formatIso(DateTime.unsafeMake(now)),
    duration_ms: now - input.startedAt,
    counts: Object.fromEntries(Object.entries(input.counts).filter(([, n]) => n > 0)),
    total_rows: Object.values(input.counts).reduce((a, b) => a + b, 0),
    totals: input.totals,
    alarms: input.alarms ?? [],
    ...input.extra,
    exit_code: input.exitCode
  }))

export const writeSummaryFile = (paths: OutputPaths, summary: object) => writeSummary(paths.summary, summary)
