/** The fee estimate rule of the balance preflight (DESIGN 6). */
import { Either } from "effect"

/**
 * `--fee-estimate P%[,min=M]`: P percent of each amount rounded up, and at least M minor units per
 * payout in every currency. A flat percentage under-estimates small payouts, whose fee is the
 * service's minimum: 300 payouts of 1,000 XAF cost 15,000 XAF in fees, not 2% of 300,000.
 */
export interface FeeEstimate {
  readonly percent: number
  readonly minimumMinor: number
}

/**
 * Covers the sandbox's payout fee (the sandbox's fee schedule: 1% rounded up to a whole unit, at least 50
 * XAF or XOF) for every XAF and XOF amount: 2% rounded up is at least that 1%, and the minimums match.
 */
export const DEFAULT_FEE_ESTIMATE: FeeEstimate = { percent: 2, minimumMinor: 50 }

const RULE = /^(\d{1,3}(?:\.\d{1,6})?)%(?:,min=(\d{1,15}))?$/

/** Parses `P%[,min=M]` (spaces ignored); Left is the reason shown to the user. */
export const parseFeeEstimate = (text: string): Either.Either<FeeEstimate, string> => {
  const match = RULE.exec(text.replace(/\s+/g, ""))
  if (match === null) return Either.left(`"${text}" is not a rule P%[,min=M] (e.g. 2%,min=50; M in minor units)`)
  const percent = Number(match[1])
  if (percent > 100) return Either.left(`"${text}": the percentage must be between 0 and 100`)
  return Either.right({ percent, minimumMinor: Number(match[2] ?? "0") })
}

export const formatFeeEstimate = (rule: FeeEstimate): string => `${rule.percent}%,min=${rule.minimumMinor}`

const MICRO = 1_000_000n

/**
 * Fee estimate in minor units: max(P% of the amount rounded up, M). In integers, so that 1.1% of
 * 1000 is 11, not 12. A bare number is a percentage without minimum (callers older than the rule).
 */
export const estimateFee = (amountMinor: number, rule: FeeEstimate | number): number => {
  const { percent, minimumMinor } = typeof rule === "number" ? { percent: rule, minimumMinor: 0 } : rule
  const scaled = BigInt(Math.round(percent * 1_000_000))
  const share = (BigInt(Math.round(amountMinor)) * scaled + 100n * MICRO - 1n) / (100n * MICRO)
  return Math.max(Number(share), minimumMinor)
}
