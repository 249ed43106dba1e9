/**
 * What a number or a record from the service can be before it is believed or stored: amounts and fees
 * are safe integers in minor units (after the conversion `fromWire` does), a fee is never negative and
 * never above `max(amount, FEE_FLOOR major units)`, and a status record names our reference, amount
 * and currency. Anything else is an anomaly: its text (the raw values, cut) goes on the row's alarm.
 * One module for every caller: tracking, the POST's answer, resolve, reconcile and the listing mirror.
 */
import { Either } from "effect"
import { MinorUnits } from "../domain/Ids.ts"
import { fromWire, minorDigits } from "../domain/Money.ts"
import { visible } from "../domain/Text.ts"
import type { PayoutResponse, StatusRecord } from "./Schemas.ts"

/**
 * A fee may exceed the amount only up to this many major units: operators charge flat minimums (the
 * sandbox 50 XAF) that a small payout does not cover, but no fee above both is a payout's.
 */
export const FEE_FLOOR_MAJOR = 1_000

/** The longest raw text of the service's quoted in an anomaly. */
const QUOTE_MAX = 64

/** The row's own facts a record is held against. */
export interface Ours {
  readonly reference: string
  readonly amountMinor: number | null
  readonly currency: string
}

/** A raw value of the service's, printable and short: a number as JSON wrote it, a text cut. */
export const quote = (value: unknown, scrub: (text: string) => string = (t) => t): string => {
  const shown = visible(typeof value === "string" ? JSON.stringify(scrub(value)) : String(value))
  return shown.length > QUOTE_MAX ? `${shown.slice(0, QUOTE_MAX)}...` : shown
}

/** A wire amount as minor units when it is one a payout can have; Left says why not. */
export const wireMinor = (what: string, value: number, currency: string): Either.Either<MinorUnits, string> => {
  if (!Number.isFinite(value)) return Either.left(`${what} ${quote(value)} is not a finite number`)
  const minor = fromWire(value, currency)
  if (!Number.isSafeInteger(minor)) return Either.left(`${what} ${quote(value)} ${currency} is beyond any payout (not a safe integer of minor units)`)
  if (minor < 0) return Either.left(`${what} ${quote(value)} ${currency} is negative`)
  return Either.right(MinorUnits.make(minor))
}

/** A wallet's balance: any sign, but a safe integer of minor units; Left says why not. */
export const checkBalance = (what: string, value: number, currency: string): Either.Either<number, string> => {
  const minor = Number.isFinite(value) ? fromWire(value, currency) : NaN
  return Number.isSafeInteger(minor) ? Either.right(minor) : Either.left(`${what} ${quote(value)} ${currency} is not an amount of minor units`)
}

/** A fee in minor units, checked against the amount it was charged on. */
export const checkFee = (fee: number, amountMinor: number | null, currency: string): Either.Either<MinorUnits, string> =>
  Either.flatMap(wireMinor("fee", fee, currency), (minor) => {
    const bound = Math.max(amountMinor ?? 0, FEE_FLOOR_MAJOR * 10 ** minorDigits(currency))
    return minor > bound
      ? Either.left(`fee ${quote(fee)} ${currency} is above the payout's amount and above ${FEE_FLOOR_MAJOR} ${currency}`)
      : Either.right(minor)
  })

/** The facts a record can differ from ours in, each with the service's raw value. */
const sameAsOurs = (
  record: { readonly reference?: string | undefined; readonly amount?: number | undefined; readonly currency?: string | undefined },
  ours: Ours,
  scrub: (text: string) => string
): Either.Either<void, string> => {
  if (record.reference !== undefined && record.reference !== ours.reference) {
    return Either.left(`the service answered the record of another reference ${quote(record.reference, scrub)} for ${ours.reference}`)
  }
  if (record.currency !== undefined && record.currency !== ours.currency) {
    return Either.left(`the service answered currency ${quote(record.currency, scrub)} for a payout in ${ours.currency}`)
  }
  if (record.amount !== undefined) {
    const amount = wireMinor("amount", record.amount, ours.currency)
    if (Either.isLeft(amount)) return Either.left(`the service answered ${amount.left}`)
    if (ours.amountMinor !== null && amount.right !== ours.amountMinor) {
      return Either.left(`the service answered amount ${quote(record.amount)} ${ours.currency} for a payout of another amount`)
    }
  }
  return Either.void
}

/** A status record of our payout: its fee in minor units, or the anomaly. */
export const checkStatusRecord = (record: StatusRecord, ours: Ours, scrub: (text: string) => string): Either.Either<MinorUnits, string> =>
  Either.flatMap(sameAsOurs(record, ours, scrub), () =>
    Either.mapLeft(checkFee(record.fee, ours.amountMinor, ours.currency), (why) => `the service answered ${why}`)
  )

/** The POST's answer: its fee in minor units when it has one, or the anomaly (its reference is the service's to give). */
export const checkPayoutAnswer = (
  answer: PayoutResponse,
  ours: Omit<Ours, "reference">,
  scrub: (text: string) => string
): Either.Either<MinorUnits | undefined, string> =>
  Either.flatMap(sameAsOurs({ amount: answer.amount, currency: answer.currency }, { ...ours, reference: answer.reference }, scrub), () =>
    answer.fee === undefined
      ? Either.right(undefined)
      : Either.mapLeft(checkFee(answer.fee, ours.amountMinor, ours.currency), (why) => `the service answered ${why}`)
  )
