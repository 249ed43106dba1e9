/**
 * Test numbers: one set per country for payouts and one for pay-ins, each a valid mobile number of
 * its country (libphonenumber-js/max), plus the two test cards (Luhn-valid).
 */
import type { Country } from "../domain/Operators.ts"

export type PayoutOutcome = "success" | "failure" | "delayed" | "cancelled"
export type PayinOutcome = "success" | "insufficient_funds" | "timeout" | "cancelled"

export const PAYOUT_NUMBERS: Readonly<Record<Country, Readonly<Record<PayoutOutcome, string>>>> = {
  CM: { success: "+237670000001", failure: "+237670000002", delayed: "+237670000003", cancelled: "+237670000004" },
  CI: { success: "+2250700000001", failure: "+2250700000002", delayed: "+2250700000003", cancelled: "+2250700000004" },
  SN: { success: "+221770000001", failure: "+221770000002", delayed: "+221770000003", cancelled: "+221770000004" },
  BJ: { success: "+2290190000001", failure: "+2290190000002", delayed: "+2290190000003", cancelled: "+2290190000004" },
  TG: { success: "+22890000001", failure: "+22890000002", delayed: "+22890000003", cancelled: "+22890000004" }
}

export const PAYIN_NUMBERS: Readonly<Record<Country, Readonly<Record<PayinOutcome, string>>>> = {
  CM: { success: "+237690000001", insufficient_funds: "+237690000002", timeout: "+237690000003", cancelled: "+237690000004" },
  CI: { success: "+2250500000001", insufficient_funds: "+2250500000002", timeout: "+2250500000003", cancelled: "+2250500000004" },
  SN: { success: "+221780000001", insufficient_funds: "+221780000002", timeout: "+221780000003", cancelled: "+221780000004" },
  BJ: { success: "+2290196000001", insufficient_funds: "+2290196000002", timeout: "+2290196000003", cancelled: "+2290196000004" },
  TG: { success: "+22870000001", insufficient_funds: "+22870000002", timeout: "+22870000003", cancelled: "+22870000004" }
}

export const TEST_CARDS = { success: "4242424242424242", declined: "4000000000000002" } as const

export const testData = () => ({ payout: PAYOUT_NUMBERS, payin: PAYIN_NUMBERS, cards: TEST_CARDS })

const PAYOUT_OUTCOMES: ReadonlyArray<PayoutOutcome> = ["success", "failure", "delayed", "cancelled"]
const PAYIN_OUTCOMES: ReadonlyArray<PayinOutcome> = ["success", "insufficient_funds", "timeout", "cancelled"]

const payoutOutcomes = new Map<string, PayoutOutcome>(
  Object.values(PAYOUT_NUMBERS).flatMap((set) => PAYOUT_OUTCOMES.map((outcome) => [set[outcome], outcome] as const))
)

/** The outcome a payout test number selects; undefined for an ordinary number. */
export const payoutOutcomeOf = (e164: string): PayoutOutcome | undefined => payoutOutcomes.get(e164)

const payinOutcomes = new Map<string, PayinOutcome>(
  Object.values(PAYIN_NUMBERS).flatMap((set) => PAYIN_OUTCOMES.map((outcome) => [set[outcome], outcome] as const))
)

/** The outcome a pay-in test number selects; undefined for an ordinary number. */
export const payinOutcomeOf = (e164: string): PayinOutcome | undefined => payinOutcomes.get(e164)
