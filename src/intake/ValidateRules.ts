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

type Check<A> = Either.Either<A, string>

/** A cell quoted in a reason, cut short: the errors file has the value itself. */
const shown = (value: string): string => `"${value.length > 40 ? `${value.slice(0, 39)}…` : value}"`

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/
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
  if (CONTROL.test(raw)) return Either.left(`${what} contains control characters`)
  const value = oneLine(raw)
  return Either.right(value === "" ? undefined : value)
}

export const checkId = (raw: string): Check<string | undefined> => {
  const value = raw.trim()
  if (value === "") return Either.right(undefined)
  // A line break or control character in an id would cut or corrupt every file and log line it reaches.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return Either.left("id contains control characters or line breaks")
  return Either.right(value)
}

export const checkName = (raw: string): Check<string> =>
  Either.flatMap(text("name", raw), (value) => (value === undefined ? Either.left("name is empty") : Either.right(value)))

export const checkDescription = (raw: string): Check<string | undefined> => text("description", raw)

const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]$/

export const checkEmail = (raw: string): Check<string> => {
  const value = raw.trim()
  if (value === "") return Either.left("email is empty")
  const at = value.lastIndexOf("@")
  if (value.length > 254 || at > 64 || !EMAIL.test(value)) return Either.left(`${shown(value)} is not a valid e-mail address`)
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
export const cleanDetails = (meta: Readonly<Record<string, string>>): Record<string, string> => {
  // One pass (a row of a million-row file is checked in microseconds); fromEntries, not assignment,
  // so a "meta.__proto__" column stays a detail of that name.
  const kept: Array<[string, string]> = []
  for (const [key, raw] of Object.entries(meta)) {
    const value = raw.trim()
    if (value !== "") kept.push([key, value])
  }
  return Object.fromEntries(kept)
}
