/**
 * `<name>.report.html`: what people look at after a run. The figures come from the summary (counts,
 * totals, what the wallet gave, stuck rows), the store (who approved) and one streamed pass over the
 * rows (operators, time to final status, the rows not paid by status with their recipients' names and
 * references, the amount to pay again per currency, the rows rejected or skipped and why).
 */
import { DateTime, Effect, Either, Option, Schema, Stream } from "effect"
import { hostname, userInfo } from "node:os"
import { basename, dirname, join } from "node:path"
import { parseAmount } from "../domain/Money.ts"
import { maskPhone } from "../domain/Phone.ts"
import type { Row } from "../store/Model.ts"
import { DROPPED_STATES, PAID_OUT_STATES, SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { type Format, userFormat } from "./Format.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { writeTextAtomic } from "./AtomicFile.ts"
import type { OutputPaths } from "./AtomicFile.ts"
import { amountAsWritten } from "./Outputs.ts"
import { renderReport } from "./ReportHtml.ts"
import { approvalOf } from "./ApprovalFile.ts"
import { isAlreadyPaid } from "./AlreadyPaid.ts"
import { type AlreadyPaid, Summary } from "./SummaryFile.ts"
import { makeUnpaidColumns, unpaidCsvPath, writeUnpaidCsv } from "./UnpaidCsv.ts"

export const reportPath = (paths: OutputPaths): string =>
  join(dirname(paths.ledger), basename(paths.ledger).replace(/\.ledger\.csv$/, "") + ".report.html")

import type { NotPaidStatus, OperatorStats, ReportData, ReportRow } from "./ReportData.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

const MAX_FAILED_LISTED = 500

const amountOf = (row: Row, format: Format): string => {
  // A rejected row's amount is shown as the file wrote it: it may not be a number at all.
  const written = amountAsWritten(row)
  if (written !== undefined) return `${written} ${row.currency}`.trim()
  return row.amountMinor === null ? "" : `${format.minor(row.amountMinor, row.currency)} ${row.currency}`
}

/** Sent and not paid, each status counted and listed apart (a cancelled payout is not a failed one). */
const NOT_PAID: ReadonlyArray<NotPaidStatus> = ["failed", "cancelled", "expired", "refunded", "unknown"]

type OperatorCounts = { -readonly [K in Exclude<keyof OperatorStats, "operator">]: number }
const noCounts = (): OperatorCounts => ({ sent: 0, completed: 0, failed: 0, cancelled: 0, expired: 0 })
const sumCounts = (all: ReadonlyArray<OperatorCounts>): OperatorCounts =>
  all.reduce((a, b) => ({ sent: a.sent + b.sent, completed: a.completed + b.completed, failed: a.failed + b.failed, cancelled: a.cancelled + b.cancelled, expired: a.expired + b.expired }), noCounts())

/**
 * What AlreadyPaid.ts may count apart: `listed`, a paid row this batch never sent (adopted from the
 * listing); `paid`, any other paid row (another batch's when the batch was done before this run).
 */
type Kind = "own" | "listed" | "paid"
const KINDS: ReadonlyArray<Kind> = ["own", "listed", "paid"]
const BEFORE_THIS_RUN = { batchId: "", file: "" }
const kindOf = (row: Row): Kind => (isAlreadyPaid(row, undefined) ? "listed" : isAlreadyPaid(row, BEFORE_THIS_RUN) ? "paid" : "own")

/**
 * The report's figures, gathered one row at a time: fed by the ledger's own pass over the rows at the
 * end of a run (one read of the batch for both files, not two), or by a pass of its own.
 */
const reportRow = (row: Row, format: Format): ReportRow => ({
  line: row.line,
  id: row.rowId ?? "",
  reference: row.reference ?? "",
  operator: row.operator,
  amount: amountOf(row, format),
  name: row.name,
  phone: maskPhone(row.phone),
  status: row.state,
  error: row.error ?? ""
})

export const makeReportTally = (format: Format) => {
  // Per operator and per kind of row: the rows another batch paid are left out at the end (below).
  const operators = new Map<string, Record<Kind, OperatorCounts>>()
  const repay: Record<string, { rows: number; minor: number }> = {}
  const times: Array<readonly [number, Kind]> = []
  const notPaid = new Map<string, { total: number; rows: Array<ReportRow> }>(NOT_PAID.map((s) => [s, { total: 0, rows: [] }]))
  const unpaid: Array<ReportRow> = []
  let unpaidTotal = 0
  const unpaidColumns = makeUnpaidColumns()
  let batch: { readonly accountId: AccountId; readonly batchId: BatchId } | undefined
  const add = (row: Row): void => {
    batch ??= { accountId: row.accountId, batchId: row.batchId }
    unpaidColumns.add(row)
    const sent = row.attempts > 0 || row.reference !== null
    const kind = kindOf(row)
    if (sent) {
      const byKind = operators.get(row.operator) ?? { own: noCounts(), listed: noCounts(), paid: noCounts() }
      const op = byKind[kind]
      op.sent += 1
      if (PAID_OUT_STATES.includes(row.state)) op.completed += 1
      if (row.state === "failed" || row.state === "cancelled" || row.state === "expired") op[row.state] += 1
      operators.set(row.operator, byKind)
    }
    const from = row.submittedAt ?? row.intentAt
    if (row.finalAt !== null && from !== null && sent) {
      times.push([Math.max(0, (DateTime.toEpochMillis(row.finalAt) - DateTime.toEpochMillis(from)) / 1000), kind])
    }
    if (SETTLED_FAILURE_STATES.includes(row.state) && row.amountMinor !== null) {
      const due = repay[row.currency] ?? { rows: 0, minor: 0 }
      repay[row.currency] = { rows: due.rows + 1, minor: due.minor + row.amountMinor }
    }
    const group = notPaid.get(row.state)
    if (group !== undefined) {
      group.total += 1
      if (group.rows.length < MAX_FAILED_LISTED) {
        group.rows.push(reportRow(row, format))
      }
    }
    if (DROPPED_STATES.includes(row.state)) {
      unpaidTotal += 1
      if (unpaid.length < MAX_FAILED_LISTED) {
        unpaid.push(reportRow(row, format))
      }
    }
  }
  /** The figures, without the rows the summary says another batch paid (its `already_paid`). */
  const result = (already?: AlreadyPaid): RowFigures => {
    const counted = (kind: Kind) => already === undefined || kind === "own" || (kind === "paid" && already.earlier_run === undefined)
    return {
      operators: [...operators.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([operator, byKind]) => ({ operator, ...sumCounts(KINDS.filter(counted).map((k) => byKind[k])) }))
        .filter((o) => o.sent > 0),
      timesToFinal: times.filter(([, kind]) => counted(kind)).map(([t]) => t),
      notPaid: NOT_PAID.map((status) => ({ status, ...(notPaid.get(status) ?? { total: 0, rows: [] }) })),
      unpaid,
      unpaidTotal,
      repay
    }
  }
  return { add, result, format, unpaidColumns, batch: () => batch } as const
}

export type ReportTally = ReturnType<typeof makeReportTally>

/** What the report takes from the rows (the rest comes from the summary, the store and the approval). */
export type RowFigures = Omit<ReportData, "summary" | "feesEstimated" | "format" | "people" | "debited" | "unpaidCsv">

/** The estimates beside the fees charged (Outputs.totalsByCurrency); absent from older summaries. */
const FeeEstimates = Schema.Struct({
  totals: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Struct({ fees_estimated: Schema.optional(Schema.String) }) }))
})

/** What the wallet gave per currency: the amounts completed plus the fees charged, as the summary totals them. */
const debitedOf = (summary: Summary): ReportData["debited"] =>
  Object.entries(summary.totals).map(([currency, t]) => {
    const minor = (text: string) => Either.getOrElse(parseAmount(text, currency), () => 0)
    return { currency, paidMinor: minor(t.completed_amount), feesMinor: minor(t.fees) }
  })

/**
 * Who approved the batch (the store's record, made before it was paid), who submitted it (the approval
 * request beside the file: `watch --submitted-by`), and the user and machine that ran it.
 */
const peopleOf = (batch: ReturnType<ReportTally["batch"]>, file: string) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const found = batch === undefined ? Option.none() : yield* batches.getBatch(batch.accountId, batch.batchId)
    const approval = yield* approvalOf(file).pipe(Effect.orElseSucceed(() => Option.none()))
    const approvedBy = Option.flatMap(found, (b) => Option.fromNullable(b.approvedBy))
    const approvedAt = Option.flatMap(found, (b) => Option.fromNullable(b.approvedAt))
    return {
      ...(Option.isSome(approvedBy) ? { approvedBy: approvedBy.value } : {}),
      ...(Option.isSome(approvedAt) ? { approvedAt: DateTime.formatIso(approvedAt.value) } : {}),
      ...(Option.isSome(approval) && approval.value.submitted_by !== undefined ? { submittedBy: approval.value.submitted_by } : {}),
      ...runBy()
    } satisfies ReportData["people"]
  })

const runBy = (): { runBy?: string } => {
  try {
    return { runBy: `${userInfo().username}@${hostname()}` }
  } catch {
    return {}
  }
}

/**
 * Writes the report beside its ledger, atomically, from the rows' figures already gathered, and the
 * ready-to-fix CSV of the rows not paid beside it (UnpaidCsv.ts), which the report links.
 */
export const writeReportOf = (path: string, summary: object, tally: ReportTally) =>
  Effect.gen(function* () {
    const decoded = yield* Schema.decodeUnknown(Summary)(summary)
    const estimates = yield* Schema.decodeUnknown(FeeEstimates)(summary)
    const feesEstimated = Object.fromEntries(
      Object.entries(estimates.totals ?? {}).flatMap(([c, t]) => (t.fees_estimated === undefined ? [] : [[c, t.fees_estimated]]))
    )
    const batch = tally.batch()
    const csvPath = unpaidCsvPath(path)
    const written = batch === undefined ? false : yield* writeUnpaidCsv(csvPath, batch.accountId, batch.batchId, tally.unpaidColumns)
    const unpaidCsv = written ? { file: basename(csvPath), rows: tally.unpaidColumns.rows() } : undefined
    const people = yield* peopleOf(batch, decoded.file)
    const figures = tally.result(decoded.already_paid)
    yield* writeTextAtomic(path, renderReport({ summary: decoded, feesEstimated, format: tally.format, people, debited: debitedOf(decoded), ...(unpaidCsv === undefined ? {} : { unpaidCsv }), ...figures }))
  }).pipe(Effect.withSpan("Report.write"))

/** Writes the report of a batch beside its ledger, atomically, with a pass of its own over the rows. */
export const writeReport = (path: string, accountId: AccountId, batchId: BatchId, summary: object) =>
  Effect.gen(function* () {
    const rows = yield* Rows
    const tally = makeReportTally(yield* userFormat)
    yield* Stream.runForEach(rows.streamRows(accountId, batchId), (row) => Effect.sync(() => tally.add(row)))
    yield* writeReportOf(path, summary, tally)
  })
