/**
 * Balance preflight (DESIGN.md section 6): the rows not yet submitted, plus a fee estimate, must fit
 * each currency's available balance. Pure, so both policies are unit-tested without a service.
 */

export type OnInsufficient = "abort" | "partial"

export interface PendingRow {
  readonly idx: number
  readonly currency: string
  readonly amountMinor: number
}

export interface CurrencyCheck {
  readonly currency: string
  readonly rows: number
  readonly amountMinor: number
  readonly feeEstimateMinor: number
  readonly availableMinor: number
  readonly fits: boolean
  /**
   * What the rows that will be sent take from the wallet, amount + estimated fees: all of them when
   * they fit, none under abort when they do not, those that fit (in file order) under partial.
   */
  readonly debitMinor: number
  /** Rows the partial policy leaves out (skipped) in this currency. */
  readonly skipped: number
}

export interface PreflightResult {
  readonly checks: ReadonlyArray<CurrencyCheck>
  readonly ok: boolean
  /** Rows to mark skipped under the partial policy (file order: the first rows that fit are paid). */
  readonly skip: ReadonlyArray<number>
}

import { estimateFee, type FeeEstimate } from "../domain/FeeEstimate.ts"

export const preflight = (
  rows: Iterable<PendingRow>,
  availableMinor: ReadonlyMap<string, number>,
  feeEstimate: FeeEstimate | number,
  policy: OnInsufficient
): PreflightResult => {
  const totals = new Map<string, { rows: number; amount: number; fee: number; used: number; full: boolean; skipped: number }>()
  const skip: Array<number> = []
  for (const row of rows) {
    const t = totals.get(row.currency) ?? { rows: 0, amount: 0, fee: 0, used: 0, full: false, skipped: 0 }
    const fee = estimateFee(row.amountMinor, feeEstimate)
    t.rows += 1
    t.amount += row.amountMinor
    t.fee += fee
    if (policy === "partial") {
      const available = availableMinor.get(row.currency) ?? 0
      // "While they fit": after the first row that does not fit, the rest of the currency waits.
      if (!t.full && t.used + row.amountMinor + fee <= available) t.used += row.amountMinor + fee
      else {
        t.full = true
        t.skipped += 1
        skip.push(row.idx)
      }
    }
    totals.set(row.currency, t)
  }
  const checks = [...totals.entries()].map(([currency, t]): CurrencyCheck => {
    const available = availableMinor.get(currency) ?? 0
    const fits = t.amount + t.fee <= available
    return {
      currency,
      rows: t.rows,
      amountMinor: t.amount,
      feeEstimateMinor: t.fee,
      availableMinor: available,
      fits,
      debitMinor: fits ? t.amount + t.fee : policy === "partial" ? t.used : 0,
      skipped: policy === "partial" ? t.skipped : 0
    }
  })
  return { checks, ok: checks.every((c) => c.fits), skip: policy === "partial" ? skip : [] }
}
