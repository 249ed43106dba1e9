/**
 * `<name>.report.html`: what people look at after a run. The figures come from the summary (counts,
 * totals, stuck rows) and one streamed pass over the rows (operators, time to final status, failures
 * with their references, the amount to pay again per currency, the rows rejected or skipped and why).
 */
import { DateTime, Effect, Schema, Stream } from "effect"
import { basename, dirname, join } from "node:path"
import { maskPhone } from "../domain/Phone.ts"
import type { Row } from "../store/Model.ts"
import { DROPPED_STATES, PAID_OUT_STATES, SETTLED_FAILURE_STATES, UNPAID_OUTCOME_STATES } from "../store/RowState.ts"
import { type Format, userFormat } from "./Format.ts"
import { StateStore } from "../store/StateStore.ts"
import { writeTextAtomic } from "./AtomicFile.ts"
import type { OutputPaths } from "./AtomicFile.ts"
import { amountAsWritten } from "./Outputs.ts"
import { renderReport } from "./ReportHtml.ts"
import { Summary } from "./SummaryFile.ts"

export const reportPath = (paths: OutputPaths): string =>
  join(dirname(paths.ledger), basename(paths.ledger).replace(/\.ledger\.csv$/, "") + ".report.html")

import type { FailedRow, OperatorStats, ReportData, UnpaidRow } from "./ReportData.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export type { FailedRow, OperatorStats, ReportData, UnpaidRow }

const MAX_FAILED_LISTED = 500

const amountOf = (row: Row, format: Format): string => {
  // A rejected row's amount is shown as the file wrote it: it may not be a number at all.
  const written = amountAsWritten(row)
  if (written !== undefined) return `${written} ${row.currency}`.trim()
  return row.amountMinor === null ? "" : `${format.minor(row.amountMinor, row.currency)} ${row.currency}`
}

/**
 * The report's figures, gathered one row at a time: fed by the ledger's own pass over the rows at the
 * end of a run (one read of the batch for both files, not two), or by a pass of its own.
 */
export const makeReportTally = (format: Format) => {
  const operators = new Map<string, { sent: number; completed: number; failed: number; cancelled: number; expired: number }>()
  const repay: Record<string, { rows: number; minor: number }> = {}
  const times: Array<number> = []
  const failed: Array<FailedRow> = []
  let failedTotal = 0
  const unpaid: Array<UnpaidRow> = []
  let unpaidTotal = 0
  const add = (row: Row): void => {
    const sent = row.attempts > 0 || row.reference !== null
    if (sent) {
      const op = operators.get(row.operator) ?? { sent: 0, completed: 0, failed: 0, cancelled: 0, expired: 0 }
      op.sent += 1
      if (PAID_OUT_STATES.includes(row.state)) op.completed += 1
      if (row.state === "failed" || row.state === "cancelled" || row.state === "expired") op[row.state] += 1
      operators.set(row.operator, op)
    }
    const from = row.submittedAt ?? row.intentAt
    if (row.finalAt !== null && from !== null && sent) {
      times.push(Math.max(0, (DateTime.toEpochMillis(row.finalAt) - DateTime.toEpochMillis(from)) / 1000))
    }
    if (SETTLED_FAILURE_STATES.includes(row.state) && row.amountMinor !== null) {
      const due = repay[row.currency] ?? { rows: 0, minor: 0 }
      repay[row.currency] = { rows: due.rows + 1, minor: due.minor + row.amountMinor }
    }
    if (row.state === "unknown" || UNPAID_OUTCOME_STATES.includes(row.state)) {
      failedTotal += 1
      if (failed.length < MAX_FAILED_LISTED) {
        failed.push({
          line: row.line,
          id: row.rowId ?? "",
          reference: row.reference ?? "",
          operator: row.operator,
          amount: amountOf(row, format),
          phone: maskPhone(row.phone),
          status: row.state,
          error: row.error ?? ""
        })
      }
    }
    if (DROPPED_STATES.includes(row.state)) {
      unpaidTotal += 1
      if (unpaid.length < MAX_FAILED_LISTED) {
        unpaid.push({ line: row.line, id: row.rowId ?? "", operator: row.operator, amount: amountOf(row, format), status: row.state, reason: row.error ?? "" })
      }
    }
  }
  const result = (): RowFigures => ({
    operators: [...operators.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([operator, s]) => ({ operator, ...s })),
    timesToFinal: times,
    failed,
    failedTotal,
    unpaid,
    unpaidTotal,
    repay
  })
  return { add, result, format } as const
}

export type ReportTally = ReturnType<typeof makeReportTally>

/** What the report takes from the rows (the rest comes from the summary). */
export type RowFigures = Omit<ReportData, "summary" | "feesEstimated" | "format">

/** The estimates beside the fees charged (Outputs.totalsByCurrency); absent from older summaries. */
const FeeEstimates = Schema.Struct({
  totals: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Struct({ fees_estimated: Schema.optional(Schema.String) }) }))
})

/** Writes the report beside its ledger, atomically, from the rows' figures already gathered. */
export const writeReportOf = (path: string, summary: object, tally: ReportTally) =>
  Effect.gen(function* () {
    const decoded = yield* Schema.decodeUnknown(Summary)(summary)
    const estimates = yield* Schema.decodeUnknown(FeeEstimates)(summary)
    const feesEstimated = Object.fromEntries(
      Object.entries(estimates.totals ?? {}).flatMap(([c, t]) => (t.fees_estimated === undefined ? [] : [[c, t.fees_estimated]]))
    )
    yield* writeTextAtomic(path, renderReport({ summary: decoded, feesEstimated, format: tally.format, ...tally.result() }))
  }).pipe(Effect.withSpan("Report.write"))

/** Writes the report of a batch beside its ledger, atomically, with a pass of its own over the rows. */
export const writeReport = (path: string, accountId: AccountId, batchId: BatchId, summary: object) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const tally = makeReportTally(yield* userFormat)
    yield* Stream.runForEach(store.batch(accountId, batchId).streamRows(), (row) => Effect.sync(() => tally.add(row)))
    yield* writeReportOf(path, summary, tally)
  })
