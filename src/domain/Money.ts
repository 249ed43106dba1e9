/**
 * Money is an integer count of minor units. XAF and XOF have no minor unit; the others have two.
 * Parsing is strict on purpose: a finance CSV with "1,000", "100.000" (for XAF) or "1e3" is a mistake to
 * report, not guess.
 */
import { Either } from "effect"
import { MinorUnits } from "./Ids.ts"
import { visible } from "./Text.ts"

const MINOR_DIGITS: Readonly<Record<string, number>> = { XAF: 0, XOF: 0, NGN: 2, GHS: 2, USD: 2, EUR: 2 }

export const isKnownCurrency = (currency: string): boolean => Object.hasOwn(MINOR_DIGITS, currency)

export const minorDigits = (currency: string): number =>
  Object.hasOwn(MINOR_DIGITS, currency) ? MINOR_DIGITS[currency] : 2

const DECIMAL = /^\+?(\d+)(?:\.(\d+))?$/
const EXPONENT = /^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
/** "1.000.000": dots between groups of three digits. */
const DOT_GROUPED = /^\+?\d{1,3}(?:\.\d{3}){2,}$/

const ambiguous = (text: string, currency: string, digits: number): string => {
  const grouped = text.replace(/^\+/, "").split(".")
  const asThousands = BigInt(grouped.join("")).toString()
  const whole = BigInt(grouped[0]).toString()
  const asDecimal = digits === 0 ? whole : `${whole}.${"0".repeat(digits)}`
  const decimals = digits === 0 ? "no decimals" : `${digits} decimals`
  return grouped.length > 2
    ? `amount "${text}" is ambiguous: thousands separator? write ${asThousands}`
    : `amount "${text}" is ambiguous: thousands separator? ${currency} has ${decimals}: write ${asThousands}, or ${asDecimal}`
}

/** Parses a decimal amount into minor units; Left carries the reason shown to the user. */
export const parseAmount = (text: string, currency: string): Either.Either<MinorUnits, string> => {
  const trimmed = text.trim()
  if (trimmed === "") return Either.left("amount is empty")
  if (EXPONENT.test(trimmed)) return Either.left(`amount "${visible(trimmed)}" must be a plain decimal, not an exponent`)
  if (/^-\d/.test(trimmed)) return Either.left("amount must be greater than zero")
  // \u2019 (’, a Swiss separator) escaped: the bundle stays ASCII, which Node reads into a string of one byte a character.
  if (/^\+?\d[\d,\s'\u2019]*[,\s'\u2019]\d/.test(trimmed)) {
    return Either.left(`amount "${visible(trimmed)}" must use "." for decimals and no thousands separators`)
  }
  const digits = minorDigits(currency)
  if (DOT_GROUPED.test(trimmed)) return Either.left(ambiguous(trimmed, currency, digits))
  const match = DECIMAL.exec(trimmed)
  if (match === null) return Either.left(`amount "${visible(trimmed)}" is not a decimal number`)
  // Where XAF and XOF are spent "100.000" is a hundred thousand: three decimals that the currency
  // cannot have are read as a thousands group, never silently as 100.
  if ((match[2] ?? "").length === 3 && digits < 3 && /[1-9]/.test(match[1])) return Either.left(ambiguous(trimmed, currency, digits))
  const fraction = (match[2] ?? "").replace(/0+$/, "")
  if (fraction.length > digits) {
    return Either.left(
      digits === 0
        ? `amount must be a whole number for ${currency}`
        : `amount has more than ${digits} decimals for ${currency}`
    )
  }
  const minor = BigInt(match[1]) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, "0") || "0")
  if (minor === 0n) return Either.left("amount must be greater than zero")
  if (minor > MAX_SAFE) return Either.left("amount is too large")
  return Either.right(MinorUnits.make(Number(minor)))
}

/** Formats minor units as a plain decimal string ("1250.50", "5000"). */
export const formatAmount = (minor: number, currency: string): string => {
  const digits = minorDigits(currency)
  const whole = Math.round(minor)
  const abs = BigInt(Math.abs(whole))
  const sign = whole < 0 ? "-" : ""
  if (digits === 0) return `${sign}${abs}`
  const scale = 10n ** BigInt(digits)
  return `${sign}${abs / scale}.${(abs % scale).toString().padStart(digits, "0")}`
}

/** Minor units to the API's number in major units. */
export const toWire = (minor: number, currency: string): number => Number(formatAmount(minor, currency))

/**
 * The API's number in major units to minor units. Goes through the number's shortest decimal form,
 * so that 0.29 gives 29 (0.29 * 100 is 28.999...), rounding half away from zero beyond the minor unit.
 * Exact for every amount whose decimal form fits a double: up to 15 significant digits.
 */
export const fromWire = (major: number, currency: string): MinorUnits => {
  const digits = minorDigits(currency)
  const text = Math.abs(major).toString()
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text)
  // An amount beyond 2^53 is returned as read, not refused here: the store's schema refuses it.
  if (match === null) return MinorUnits.make(Math.round(major * 10 ** digits), { disableValidation: true })
  const fraction = match[2] ?? ""
  const kept = fraction.slice(0, digits).padEnd(digits, "0")
  const roundUp = fraction.length > digits && fraction.charCodeAt(digits) >= 53
  const minor = BigInt(match[1]) * 10n ** BigInt(digits) + BigInt(kept || "0") + (roundUp ? 1n : 0n)
  return MinorUnits.make(major < 0 ? -Number(minor) : Number(minor), { disableValidation: true })
}
