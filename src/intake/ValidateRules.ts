/** The checks of one cell (DESIGN.md section 5); each returns the clean value or the reason. */
import { Either } from "effect"
import { isKnownCurrency, minorDigits, parseAmount } from "../domain/Money.ts"
import type { MinorUnits } from "../domain/Ids.ts"
import {
  cardOperator,
  MOBILE_OPERATOR_CODES,
  mobileOperator,
  type MobileOperator,
  PAYOUT_CURRENCIES,
  isPayoutCurrency,
  type PayoutCurrency,
  WALLET_CURRENCIES
} from "../domain/Operators.ts"
import { codePointName, firstInvisible, hasStrayControl, invisibleKind, isEmail, mixedScript, visible } from "../domain/Text.ts"

type Check<A> = Either.Either<A, string>

/** A cell quoted in a reason, cut short (the errors file has the value itself), invisible characters as `<U+XXXX>`. */
export const shown = (value: string): string => `"${visible(value.length > 40 ? `${value.slice(0, 39)}…` : value)}"`

const WHITESPACE = /\s+/g

/** Trimmed, with every run of white space (line breaks included) made one space. */
// White space other than one plain space between words: only then is there anything to replace.
const UNUSUAL_SPACE = /[^\S ]|\s\s/

export const oneLine = (text: string): string => {
  const trimmed = text.trim()
  return UNUSUAL_SPACE.test(trimmed) ? trimmed.replace(WHITESPACE, " ") : trimmed
}

/** One-line text; undefined when empty. */
const text = (what: string, raw: string): Check<string | undefined> => {
  if (hasStrayControl(raw)) return Either.left(`${what} contains control characters`)
  const value = oneLine(raw)
  return Either.right(value === "" ? undefined : value)
}

// Only plain spaces are trimmed from an id: any other character at its ends is one a person cannot see.
const END_SPACES = /^ +| +$/g

/**
 * An id as written (plain spaces trimmed), refused when it holds a character a person cannot see or
 * letters of two scripts: such an id looks like another one (`S-1001` and `S-1001` + U+200B, a Latin
 * and a Cyrillic `S`) and would pay it twice. Ids are compared in their canonical form (`canonicalId`).
 */
export const checkId = (raw: string): Check<string | undefined> => {
  const value = raw.includes(" ") ? raw.replace(END_SPACES, "") : raw
  if (value === "") return Either.right(undefined)
  const invisible = firstInvisible(value)
  if (invisible !== undefined) {
    const { codePoint, position } = invisible
    return Either.left(`id ${shown(value)} holds ${invisibleKind(codePoint)} ${codePointName(codePoint)} at position ${position}: retype the id`)
  }
  const mixed = mixedScript(value)
  if (mixed !== undefined) {
    const scripts = (s: string) => (s === "other" ? "another script" : s)
    return Either.left(
      `id ${shown(value)} mixes letters of two scripts (${scripts(mixed.first)} and ${scripts(mixed.other)}): ${codePointName(mixed.codePoint)} at position ${mixed.position} is ${scripts(mixed.other)}: retype the id`
    )
  }
  return Either.right(value)
}

/** Error values a spreadsheet writes in a cell whose formula failed, in English and French, upper case. */
const SPREADSHEET_ERRORS: ReadonlySet<string> = new Set([
  "#REF!", "#N/A", "#VALUE!", "#DIV/0!", "#NAME?", "#NULL!", "#NUM!", "#SPILL!", "#CALC!", "#GETTING_DATA",
  "#VALEUR!", "#NOM?", "#NUL!", "#NOMBRE!", "#PROPAGATION!"
])

/** Whether a cell is exactly a spreadsheet error value (after trim, any case): residue, not data. */
export const isSpreadsheetError = (raw: string): boolean => {
  // Nearly every cell has no "#": decided without a trim or a copy.
  if (!raw.includes("#")) return false
  const value = raw.trim()
  return value.length <= 14 && SPREADSHEET_ERRORS.has(value.toUpperCase())
}

export const spreadsheetErrorReason = (raw: string): string =>
  `${shown(raw.trim())} is a spreadsheet error value, not a value: fix the cell in the spreadsheet`

export const checkName = (raw: string): Check<string> =>
  Either.flatMap(text("name", raw), (value) => (value === undefined ? Either.left("name is empty") : Either.right(value)))

export const checkDescription = (raw: string): Check<string | undefined> => text("description", raw)

export const checkEmail = (raw: string): Check<string> => {
  const value = raw.trim()
  if (value === "") return Either.left("email is empty")
  if (!isEmail(value)) return Either.left(`${shown(value)} is not a valid e-mail address`)
  return Either.right(value)
}

export const checkOperator = (raw: string): Check<MobileOperator> => {
  const code = raw.trim().toLowerCase()
  if (code === "") return Either.left("operator is empty")
  const operator = mobileOperator(code)
  if (operator !== undefined) return Either.right(operator)
  if (cardOperator(code) !== undefined) {
    return Either.left(`${code} is a card operator: payouts go to mobile money operators`)
  }
  return Either.left(`unknown operator ${shown(raw.trim())}: expected one of ${MOBILE_OPERATOR_CODES.join(", ")}`)
}

const WALLET_CURRENCY_SET: ReadonlySet<string> = new Set(WALLET_CURRENCIES)

export const checkCurrency = (raw: string): Check<PayoutCurrency> => {
  const code = raw.trim().toUpperCase()
  if (code === "") return Either.left("currency is empty")
  if (isPayoutCurrency(code)) return Either.right(code)
  if (WALLET_CURRENCY_SET.has(code)) {
    return Either.left(`no payout operator serves ${code}: payouts are in ${PAYOUT_CURRENCIES.join(" or ")}`)
  }
  if (isKnownCurrency(code)) return Either.left(`${code} is not a payout currency: payouts are in ${PAYOUT_CURRENCIES.join(" or ")}`)
  return Either.left(`unknown currency ${shown(raw.trim())}: payouts are in ${PAYOUT_CURRENCIES.join(" or ")}`)
}

/** The currency must be the operator's: each operator pays in its country's currency only. */
export const checkCurrencyOfOperator = (currency: PayoutCurrency, operator: MobileOperator): Check<PayoutCurrency> =>
  currency === operator.currency
    ? Either.right(currency)
    : Either.left(`${operator.code} pays in ${operator.currency}, not ${currency}`)

// A whole number without sign, zeros ahead or separators: what nearly every amount cell holds.
const PLAIN_WHOLE = /^[1-9][0-9]{0,14}$/

/**
 * The common case without parseAmount's BigInt and schema check (most of an amount's cost): the same
 * value parseAmount gives for such a cell (fewer than 16 digits are exact as a number); any other
 * cell, or a value too large, goes to parseAmount, which words every refusal.
 */
export const checkAmount = (raw: string, currency: string): Check<MinorUnits> => {
  if (PLAIN_WHOLE.test(raw)) {
    const minor = Number(raw) * 10 ** minorDigits(currency)
    if (Number.isSafeInteger(minor)) return Either.right(minor as MinorUnits)
  }
  return parseAmount(raw, currency)
}

/** Meta values, trimmed; empty ones are left out of payout_details. */
export const cleanDetails = (meta: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  // Nearly always every value is already clean: the record's own object (made for this row) is then
  // the answer, with no copy.
  let clean = true
  for (const key in meta) {
    const raw = meta[key]
    if (raw === "" || raw.trim() !== raw) clean = false
  }
  if (clean) return meta
  // fromEntries, not assignment, so a "meta.__proto__" column stays a detail of that name.
  const kept: Array<[string, string]> = []
  for (const [key, raw] of Object.entries(meta)) {
    const value = raw.trim()
    if (value !== "") kept.push([key, value])
  }
  return Object.fromEntries(kept)
}
