/**
 * Recipient numbers: a valid mobile number of the operator's country, in E.164. The full metadata
 * ("max") is needed to tell mobile from fixed-line numbers. Its ES2015 build (`/es6`, a public entry):
 * the default build copies options with Babel's object-spread helper, 9 % of a 1,000,000-row validate;
 * the same numbers give the same answers (docs/PERFORMANCE.md).
 */
import { Either } from "effect"
import { parsePhoneNumberFromString } from "libphonenumber-js/max/es6"
import { type Country, COUNTRY_NAMES, isCountry } from "./Operators.ts"
import { visible } from "./Text.ts"

/** The number types a payout may go to (libphonenumber's names). */
export const MOBILE_TYPES: ReadonlySet<string> = new Set(["MOBILE", "FIXED_LINE_OR_MOBILE"])

// libphonenumber finds numbers inside free text ("call 677..."), and reads "ext. 12": a payout number is
// only digits and the usual separators.
export const PHONE_CHARACTERS = /^\+?[0-9 ().\-/]+$/

// "2.3767E+11", "2,3767E+11", "2.3767e11": what a spreadsheet shows of a long number stored as a number.
const SCIENTIFIC = /^[+-]?[0-9]+(?:[.,][0-9]*)?[eE][+-]?[0-9]+$/

/** Why a phone cell written in scientific notation is refused: its digits are gone, not hidden. */
export const scientificNotation = (text: string): string =>
  `"${visible(text)}" is in scientific notation: a spreadsheet lost its digits; format the column as text and re-enter the numbers`

/** A number ending in 4 or more zeros: what a spreadsheet's rounding of a long number leaves behind. */
export const hasTrailingZeros = (e164: string): boolean => /0000$/.test(e164)

const countryName = (code: string | undefined): string =>
  code === undefined ? "another country" : isCountry(code) ? COUNTRY_NAMES[code] : code

/** Right: the number in E.164; Left: the reason shown to the user. */
export const normaliseMobile = (raw: string, country: Country): Either.Either<string, string> => {
  const text = raw.trim()
  if (text === "") return Either.left("phone number is empty")
  if (SCIENTIFIC.test(text)) return Either.left(scientificNotation(text))
  if (!PHONE_CHARACTERS.test(text)) {
    return Either.left(`"${visible(text)}" is not a phone number: only digits, spaces, + - . ( ) / are allowed`)
  }
  // The country as an options object: libphonenumber then copies no options object of its own.
  const parsed = parsePhoneNumberFromString(text, { defaultCountry: country })
  if (parsed === undefined) return Either.left(`"${visible(text)}" is not a phone number`)
  if (parsed.country !== undefined && parsed.country !== country) {
    return Either.left(`"${visible(text)}" is a number of ${countryName(parsed.country)}, not ${countryName(country)}`)
  }
  // With full ("max") metadata, a number has a type exactly when it is valid (libphonenumber's isValid
  // is getType() !== undefined there): one lookup instead of two, the phone check being most of a row's cost.
  const type = parsed.getType()
  if (type === undefined) return Either.left(`"${visible(text)}" is not a valid ${countryName(country)} number`)
  if (!MOBILE_TYPES.has(type)) return Either.left(`"${visible(text)}" is not a mobile number (${type.toLowerCase().replace(/_/g, " ")})`)
  return Either.right(parsed.number)
}

/** Masks a number for logs: keeps the country code and the last two digits. */
export const maskPhone = (phone: string): string =>
  phone.length <= 6 ? "***" : `${phone.slice(0, 4)}${"*".repeat(phone.length - 6)}${phone.slice(-2)}`
