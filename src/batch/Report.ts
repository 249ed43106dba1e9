/**
 * `<name>.report.html`: what people look at after a run. The figures come from the summary (counts,
 * totals, stuck rows) and one streamed pass over the rows (operators, time to final status, failures).
 */
import { DateTime, Effect, Schema, Stream } from "effect"
import { basename, dirname, join } from "node:path"
import { formatAmount } from "../domain/Money.ts"
import { maskPhone } from "../domain/Phone.ts"
import type { Row } from "../store/Model.ts"
import { StateStore } from "../store/StateStore.ts"
import { writeTextAtomic } from "./LedgerFile.ts"
import type { OutputPaths } from "./LedgerFile.ts"
import { renderReport } from "./ReportHtml.ts"
import { Summary } from "./SummaryFile.ts"

export const reportPath = (paths: OutputPaths): string =>
  join(dirname(paths.ledger), basename(paths.ledger).replace(/\.ledger\.csv$/, "") + ".report.html")

export interface OperatorStats {
  readonly operator: string
  readonly sent: number
  readonly completed: number
  readonly failed: number
}

export interface FailedRow {
  readonly line: number
  readonly id: string
  readonly operator: string
  readonly amount: string
  readonly phone: string
  readonly status: string
  readonly error: string
}

export interface ReportData {
  readonly summary: Summary
  readonly operators: ReadonlyArray<OperatorStats>
  /** Seconds from submission to the final status, one per finished row. */
  readonly timesToFinal: ReadonlyArray<number>
  readonly failed: ReadonlyArray<FailedRow>
  readonly failedTotal: number
}

const FAILED = ["failed", "cancelled", "expired", "refunded", "unknown"]
const SETTLED_FAILURE = ["failed", "cancelled", "expired"]
const MAX_FAILED_LISTED = 500

const collect = (rows: Stream.Stream<Row, unknown>) =>
  Effect.gen(function* () {
    const operators = new Map<string, { sent: number; completed: number; failed: number }>()
    const times: Array<number> = []
    const failed: Array<FailedRow> = []
    let failedTotal = 0
    yield* Stream.runForEach(rows, (row) =>
      Effect.sync(() => {
        const sent = row.attempts > 0 || row.reference !== null
        if (sent) {
          const op = operators.get(row.operator) ?? { sent: 0, completed: 0, failed: 0 }
          op.sent += 1
          if (row.state === "completed" || row.state === "refunded") op.completed += 1
          if (SETTLED_FAILURE.includes(row.state)) op.failed += 1
          operators.set(row.operator, op)
        }
        const from = row.submittedAt ?? row.intentAt
        if (row.finalAt !== null && from !== null && sent) {
          times.push(Math.max(0, (DateTime.toEpochMillis(row.finalAt) - DateTime.toEpochMillis(from)) / 1000))
        }
        if (FAILED.includes(row.state)) {
          failedTotal += 1
          if (failed.length < MAX_FAILED_LISTED) {
            failed.push({
              line: row.line,
              id: row.rowId ?? "",
              operator: row.operator,
              amount: row.amountMinor === null ? "" : `${formatAmount(row.amountMinor, row.currency)} ${row.currency}`,
              phone: maskPhone(row.phone),
              status: row.state,
              error: row.error ?? ""
            })
          }
        }
      })
    )
    return {
      operators: [...operators.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([operator, s]) => ({ operator, ...s })),
      timesToFinal: times,
      failed,
      failedTotal
    }
  })

/** Writes the report of a batch beside its ledger, atomically. */
export const writeReport = (path: string, accountId: string, batchId: string, summary: object) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const decoded = yield* Schema.decodeUnknown(Summary)(summary)
    const data = yield* collect(store.streamRows(accountId, batchId))
    yield* writeTextAtomic(path, renderReport({ summary: decoded, ...data }))
  }).pipe(Effect.withSpan("Report.write"))
