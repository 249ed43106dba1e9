/**
 * What a run leaves beside its input: the ledger (streamed from the store), the summary JSON and the
 * errors file. Every file is replaced atomically, so a reader never sees half of one.
 */
import { Clock, DateTime, Effect, Stream } from "effect"
import { formatAmount } from "../domain/Money.ts"
import type { Row } from "../store/Model.ts"
import type { StateCounts } from "../store/RowState.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { writeErrorsFile } from "./ErrorsFile.ts"
import type { RowError } from "../intake/RowError.ts"
import { type LedgerRow, writeLedger } from "./Ledger.ts"
import { retryCells, rowLinksOf } from "./RetryLinks.ts"
import { type Summary, writeSummaryJson } from "./SummaryFile.ts"
import { DEFAULT_FEE_ESTIMATE, estimateFee, type FeeEstimate } from "../domain/FeeEstimate.ts"
import { AMOUNT_AS_WRITTEN } from "../intake/CheckRecord.ts"
import type { OutputPaths } from "./AtomicFile.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

/** A rejected row's amount as the file wrote it ("2000" for NGN stays "2000", "abc" stays "abc"). */
export const amountAsWritten = (row: Row): string | undefined =>
  row.state === "rejected" ? row.details[AMOUNT_AS_WRITTEN] : undefined

export const ledgerRow = (row: Row): LedgerRow => ({
  line: row.line,
  id: row.rowId,
  operator: row.operator,
  currency: row.currency,
  amountMinor: row.amountMinor,
  amountText: amountAsWritten(row),
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

/** `each` sees every row as the ledger takes it (the report's figures gathered in the same pass). */
export const writeLedgerFromStore = (paths: OutputPaths, accountId: AccountId, batchId: BatchId, each?: (row: Row) => void) =>
  Effect.flatMap(Effect.zip(Rows, rowLinksOf(accountId, batchId)), ([rows, links]) =>
    writeLedger(
      paths.ledger,
      Stream.map(rows.streamRows(accountId, batchId), (row) => {
        each?.(row)
        return { ...ledgerRow(row), ...retryCells(links, row.idx) }
      })
    )
  )

export const writeErrors = (paths: OutputPaths, errors: ReadonlyArray<RowError>) =>
  writeErrorsFile(paths.errors, Stream.fromIterable(errors))

export interface CurrencyTotals {
  rows: number
  amount: string
  completed_amount: string
  /** Charged by the service (completed and refunded rows). */
  fees: string
  /** What `--fee-estimate` reserved for the same rows, beside the fees charged. */
  fees_estimated?: string
}

/**
 * Per-currency totals of the rows sent: their amount, the completed rows' amount, the fees charged and
 * the fees estimated. Summed by the store; the estimate has a minimum per payout, so it is taken over
 * each distinct amount times its rows rather than from the sum.
 */
export const totalsByCurrency = (accountId: AccountId, batchId: BatchId, feeEstimate: FeeEstimate = DEFAULT_FEE_ESTIMATE) =>
  Effect.flatMap(Batches, (batches) => batches.currencyTotals(accountId, batchId)).pipe(
    Effect.map((totals) =>
      Object.fromEntries(
        totals.map((t): [string, CurrencyTotals] => [
          t.currency,
          {
            rows: t.rows,
            amount: formatAmount(t.amountMinor, t.currency),
            completed_amount: formatAmount(t.completedMinor, t.currency),
            fees: formatAmount(t.feesMinor, t.currency),
            fees_estimated: formatAmount(t.amounts.reduce((sum, [amount, rows]) => sum + rows * estimateFee(amount, feeEstimate), 0), t.currency)
          }
        ])
      )
    )
  )

export interface SummaryInput {
  readonly batchId: BatchId
  readonly file: string
  readonly startedAt: number
  readonly counts: StateCounts | Readonly<Record<string, number>>
  readonly totals: Readonly<Record<string, CurrencyTotals>>
  readonly exitCode: number
  readonly outcome: string
  readonly alarms?: ReadonlyArray<{ readonly line: number; readonly reason?: string; readonly references: ReadonlyArray<string> }>
  /** The summary's other fields (outputs, alarms, pauses...), as the schema names them. */
  readonly extra?: Partial<Omit<Summary, "batch_id" | "file" | "outcome" | "counts" | "totals" | "exit_code">>
}

export const makeSummary = (input: SummaryInput) =>
  Effect.map(Clock.currentTimeMillis, (now): Summary => ({
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
    stuck: [],
    ...input.extra,
    exit_code: input.exitCode
  }))

export const writeSummaryFile = (paths: OutputPaths, summary: Summary) => writeSummaryJson(paths.summary, summary)
