/**
 * Recipient numbers: a valid mobile number of the operator's country, in E.164. The full metadata
 * ("max") is needed to tell mobile from fixed-line numbers.
 */
import { Either } from "effect"
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max"

const MOBILE_TYPES = new Set(["MOBILE", "FIXED_LINE_OR_MOBILE"])

export const normaliseMobile = (raw: string, country: string): Either.Either<string, string> => {
  const text = raw.trim()
  if (text === "") return Either.left("phone number is empty")
  const parsed = parsePhoneNumberFromString(text, country as CountryCode)
  if (parsed === undefined) return Either.left(`"${text}" is not a phone number`)
  if (!parsed.isValid()) return Either.left(`"${text}" is not a valid phone number`)
  if (parsed.country !== country) {
    return Either.left(`"${text}" is a number of ${parsed.country ?? "another country"}, not ${country}`)
  }
  const type = parsed.getType()
  if (type === undefined || !MOBILE_TYPES.has(type)) {
    return Either.left(`"${text}" is not a mobile number (${(type ?? "unknown type").toLowerCase()})`)
  }
  return Either.right(parsed.number)
}

/** Masks a number for logs: keeps the country code and the last two digits. */
export const maskPhone = (phone: string): string =>
  phone.length <= 6 ? "***" : `${phone.slice(0, 4)}${"*".repeat(phone.length - 6)}${phone.slice(-2)}`
