/** Sandbox fees (DESIGN section 4): a percentage rounded up to a whole major unit, with a minimum. */
import { minorDigits } from "../domain/Money.js"

export interface FeeRule {
  readonly percent: number
  /** Minimum fee in MAJOR units per currency. */
  readonly minimum: Readonly<Record<string, number>>
}

export interface FeeSchedule {
  readonly payout: FeeRule
  readonly payin: FeeRule
  readonly card: FeeRule
}

export const DEFAULT_FEES: FeeSchedule = {
  payout: { percent: 1, minimum: { XAF: 50, XOF: 50 } },
  payin: { percent: 2, minimum: {} },
  card: { percent: 3, minimum: {} }
}

/** The fee in minor units for an amount in minor units. */
export const feeFor = (rule: FeeRule, amountMinor: number, currency: string): number => {
  const unit = 10 ** minorDigits(currency)
  const raw = Math.ceil((amountMinor * rule.percent) / 100 / unit) * unit
  return Math.max(raw, (rule.minimum[currency] ?? 0) * unit)
}
