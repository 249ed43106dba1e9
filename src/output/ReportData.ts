/** What the HTML report shows, gathered from the store and the summary (Report.ts), rendered by ReportHtml.ts. */
import type { Format } from "./Format.ts"
import type { Summary } from "./SummaryFile.ts"

export interface OperatorStats {
  readonly operator: string
  readonly sent: number
  readonly completed: number
  /** Settled unpaid, apart: the service failed it, cancelled it, or let it expire. */
  readonly failed: number
  readonly cancelled: number
  readonly expired: number
}

/** A row as the report lists it: one not paid after it was sent, or one never sent. */
export interface ReportRow {
  readonly line: number
  readonly id: string
  /** The service's reference ("" when the POST was never answered or the row never sent). */
  readonly reference: string
  readonly operator: string
  /** With its currency; as the file wrote it for a rejected row. */
  readonly amount: string
  /** The recipient as the file named them: finance needs to know whom it still owes (the file is owner-only). */
  readonly name: string
  readonly phone: string
  readonly status: string
  /** The service's error, or why the row was not sent. */
  readonly error: string
}

/** The statuses of rows sent and not paid, each listed apart. */
export type NotPaidStatus = "failed" | "cancelled" | "expired" | "refunded" | "unknown"

export interface NotPaidGroup {
  readonly status: NotPaidStatus
  /** All rows of this status; `rows` lists the first of them. */
  readonly total: number
  readonly rows: ReadonlyArray<ReportRow>
}

export interface ReportData {
  readonly summary: Summary
  readonly operators: ReadonlyArray<OperatorStats>
  /** Seconds from submission to the final status, one per finished row. */
  readonly timesToFinal: ReadonlyArray<number>
  /** failed, cancelled, expired, refunded and unknown, in this order, each with its own count. */
  readonly notPaid: ReadonlyArray<NotPaidGroup>
  /** Rows never sent: rejected by validation (`--skip-invalid`) or skipped for balance. */
  readonly unpaid: ReadonlyArray<ReportRow>
  readonly unpaidTotal: number
  /** Minor units per currency of the failed, cancelled and expired rows: what is left to pay again. */
  readonly repay: Readonly<Record<string, { readonly rows: number; readonly minor: number }>>
  /** Separators of the user's locale, readable times. */
  readonly format: Format
  /** `fees_estimated` of the summary's totals, per currency, beside the fees charged. */
  readonly feesEstimated: Readonly<Record<string, string>>
  /** What the wallet gave per currency: amounts completed and fees charged (their sum is the total debited). */
  readonly debited: ReadonlyArray<{ readonly currency: string; readonly paidMinor: number; readonly feesMinor: number }>
  /** Who approved (and when), who submitted, and the user@host that ran the batch, as far as known. */
  readonly people: { readonly approvedBy?: string; readonly approvedAt?: string; readonly submittedBy?: string; readonly runBy?: string }
  /** The ready-to-fix CSV of the rows not paid, beside the report (its file name), when there are any. */
  readonly unpaidCsv?: { readonly file: string; readonly rows: number }
}
