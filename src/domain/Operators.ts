/** The operators of the spec's tables: code, country (ISO 3166 alpha-2) and currency. */
export type Country = "CM" | "CI" | "SN" | "BJ" | "TG"
export const COUNTRIES: ReadonlyArray<Country> = ["CM", "CI", "SN", "BJ", "TG"]

export interface MobileOperator {
  readonly code: string
  readonly country: Country
  readonly currency: "XAF" | "XOF"
}

export const MOBILE_OPERATORS: ReadonlyArray<MobileOperator> = [
  { code: "carrier1_cm", country: "CM", currency: "XAF" },
  { code: "carrier2_cm", country: "CM", currency: "XAF" },
  { code: "carrier1_ci", country: "CI", currency: "XOF" },
  { code: "carrier2_ci", country: "CI", currency: "XOF" },
  { code: "carrier3_ci", country: "CI", currency: "XOF" },
  { code: "carrier4_ci", country: "CI", currency: "XOF" },
  { code: "carrier2_sn", country: "SN", currency: "XOF" },
  { code: "carrier5_sn", country: "SN", currency: "XOF" },
  { code: "carrier6_sn", country: "SN", currency: "XOF" },
  { code: "carrier1_bj", country: "BJ", currency: "XOF" },
  { code: "carrier3_bj", country: "BJ", currency: "XOF" },
  { code: "carrier7_tg", country: "TG", currency: "XOF" }
]

export interface CardOperator {
  readonly code: string
  readonly countries: ReadonlyArray<"US" | "FR">
  readonly currencies: ReadonlyArray<"USD" | "EUR">
}

export const CARD_OPERATORS: ReadonlyArray<CardOperator> = [
  { code: "cardnet1", countries: ["US", "FR"], currencies: ["USD", "EUR"] },
  { code: "cardnet2", countries: ["US", "FR"], currencies: ["USD", "EUR"] }
]

const byCode = new Map(MOBILE_OPERATORS.map((o) => [o.code, o]))
const cardByCode = new Map(CARD_OPERATORS.map((o) => [o.code, o]))

export const mobileOperator = (code: string): MobileOperator | undefined => byCode.get(code)
export const MOBILE_OPERATOR_CODES: ReadonlyArray<string> = MOBILE_OPERATORS.map((o) => o.code)
export const cardOperator = (code: string): CardOperator | undefined => cardByCode.get(code)

/** Wallet currencies named by the spec; NGN and GHS have wallets but no payout operator. */
export const WALLET_CURRENCIES = ["XAF", "XOF", "NGN", "GHS"] as const
export const PAYOUT_CURRENCIES = ["XAF", "XOF"] as const
export type PayoutCurrency = (typeof PAYOUT_CURRENCIES)[number]

const PAYOUT_CURRENCY_SET: ReadonlySet<string> = new Set(PAYOUT_CURRENCIES)
export const isPayoutCurrency = (currency: string): currency is PayoutCurrency => PAYOUT_CURRENCY_SET.has(currency)

export const COUNTRY_NAMES: Readonly<Record<Country, string>> = {
  CM: "Cameroon",
  CI: "Côte d'Ivoire",
  SN: "Senegal",
  BJ: "Benin",
  TG: "Togo"
}

const COUNTRY_SET: ReadonlySet<string> = new Set(COUNTRIES)
export const isCountry = (code: string): code is Country => COUNTRY_SET.has(code)
