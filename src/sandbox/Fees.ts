/** Sandbox fees (DESIGN section 4): a percentage rounded up to a whole major unit, with a minimum. */
import { minorDigits } from "../domain/Money.ts"

export interface FeeRule {
  readonly percent: number
  /** Minimum fee in MAJOR units per currency. */
  readonly minimum: Readonly<Record<string, number>>
  /** Round the fee up to a whole major unit (default) or only to the minor unit. */
  readonly round?: "major" | "minor"
}

export interface FeeSchedule {
  readonly payout: FeeRule
  readonly payin: FeeRule
  readonly card: FeeRule
}

export const DEFAULT_FEES: FeeSchedule = {
  payout: { percent: 1, minimum: { XAF: 50, XOF: 50 } },
  payin: { percent: 2, minimum: {}, round: "minor" },
  card: { percent: 3, minimum: {}, round: "minor" }
}

/** The fee in minor units for an amount in minor units. */
export const feeFor = (rule: FeeRule, amountMinor: number, currency: string): number => {
  const unit = rule.round === "minor" ? 1 : 10 ** minorDigits(currency)
  const raw = Math.ceil((amountMinor * rule.percent) / 100 / unit) * unit
  return Math.max(raw, (rule.minimum[currency] ?? 0) * 10 ** minorDigits(currency))
}
