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
  readonly phone: string
  readonly status: string
  readonly error: string
}

/** A row never sent: rejected by validation (`--skip-invalid`) or skipped for balance. */
export interface UnpaidRow {
  readonly line: number
  readonly id: string
  readonly operator: string
  /** As the file wrote it for a rejected row; with its currency. */
  readonly amount: string
  readonly status: string
  readonly reason: string
}

export interface ReportData {
  readonly summary: Summary
  readonly operators: ReadonlyArray<OperatorStats>
  /** Seconds from submission to the final status, one per finished row. */
  readonly timesToFinal: ReadonlyArray<number>
  readonly failed: ReadonlyArray<FailedRow>
  readonly failedTotal: number
  readonly unpaid: ReadonlyArray<UnpaidRow>
  readonly unpaidTotal: number
  /** Minor units per currency of the failed, cancelled and expired rows: what is left to pay again. */
  readonly repay: Readonly<Record<string, { readonly rows: number; readonly minor: number }>>
  /** Separators of the user's locale, readable times. */
  readonly format: Format
  /** `fees_estimated` of the summary's totals, per currency, beside the fees charged. */
  readonly feesEstimated: Readonly<Record<string, string>>
}
