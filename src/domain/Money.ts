/**
 * Money is an integer count of minor units. XAF and XOF have no minor unit; the others have two.
 * Parsing is strict on purpose: a finance CSV with "1,000" or "1e3" is a mistake to report, not guess.
 */
import { Either } from "effect"

const MINOR_DIGITS: Record<string, number> = { XAF: 0, XOF: 0, NGN: 2, GHS: 2, USD: 2, EUR: 2 }

export const isKnownCurrency = (currency: string): boolean => currency in MINOR_DIGITS

export const minorDigits = (currency: string): number => MINOR_DIGITS[currency] ?? 2

const DECIMAL = /^(\d+)(?:\.(\d+))?$/

/** Parses a decimal amount into minor units; Left carries the reason shown to the user. */
export const parseAmount = (text: string, currency: string): Either.Either<number, string> => {
  const trimmed = text.trim()
  if (trimmed === "") return Either.left("amount is empty")
  if (trimmed.startsWith("-")) return Either.left("amount must be greater than zero")
  if (/[,\s']/.test(trimmed)) return Either.left("amount must not contain thousands separators")
  if (/[eE]/.test(trimmed)) return Either.left("amount must be a plain decimal, not an exponent")
  const match = DECIMAL.exec(trimmed.startsWith("+") ? trimmed.slice(1) : trimmed)
  if (match === null) return Either.left(`amount "${trimmed}" is not a decimal number`)
  const digits = minorDigits(currency)
  const whole = match[1]
  const fraction = (match[2] ?? "").replace(/0+$/, "")
  if (fraction.length > digits) {
    return Either.left(
      digits === 0
        ? `amount must be a whole number for ${currency}`
        : `amount has more than ${digits} decimals for ${currency}`
    )
  }
  const minor = BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, "0") || "0")
  if (minor === 0n) return Either.left("amount must be greater than zero")
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return Either.left("amount is too large")
  return Either.right(Number(minor))
}

/** Formats minor units as a plain decimal string ("1250.50", "5000"). */
export const formatAmount = (minor: number, currency: string): string => {
  const digits = minorDigits(currency)
  const negative = minor < 0
  const abs = BigInt(Math.abs(minor))
  if (digits === 0) return `${negative ? "-" : ""}${abs}`
  const scale = 10n ** BigInt(digits)
  const frac = (abs % scale).toString().padStart(digits, "0")
  return `${negative ? "-" : ""}${abs / scale}.${frac}`
}

/** Minor units to the API's number in major units. */
export const toWire = (minor: number, currency: string): number => Number(formatAmount(minor, currency))

/** The API's number in major units to minor units (rounded: the wire is a binary float). */
export const fromWire = (major: number, currency: string): number =>
  Math.round(major * 10 ** minorDigits(currency))
