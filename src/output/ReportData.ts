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

export interface FailedRow {
  readonly line: number
  readonly id: string
  /** The service's reference ("" when the POST was never answered). */
  readonly reference: string
  readonly operator: string
  readonly amount: string
  /** The recipient as the file named them: finance needs to know whom it still owes (the file is owner-only). */
  readonly name: string
  readonly phone: string
  readonly status: string
  readonly error: string
}

/** The statuses of rows sent and not paid, each listed apart. */
export type NotPaidStatus = "failed" | "cancelled" | "expired" | "refunded" | "unknown"

export interface NotPaidGroup {
  readonly status: NotPaidStatus
  /** All rows of this status; `rows` lists the first of them. */
  readonly total: number
  readonly rows: ReadonlyArray<FailedRow>
}

/** A row never sent: rejected by validation (`--skip-invalid`) or skipped for balance. */
export interface UnpaidRow {
  readonly line: number
  readonly id: string
  readonly operator: string
  /** As the file wrote it for a rejected row; with its currency. */
  readonly amount: string
  readonly name: string
  readonly status: string
  readonly reason: string
}

export interface ReportData {
  readonly summary: Summary
  readonly operators: ReadonlyArray<OperatorStats>
  /** Seconds from submission to the final status, one per finished row. */
  readonly timesToFinal: ReadonlyArray<number>
  /** failed, cancelled, expired, refunded and unknown, in this order, each with its own count. */
  readonly notPaid: ReadonlyArray<NotPaidGroup>
  readonly unpaid: ReadonlyArray<UnpaidRow>
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
