/**
 * Payout and pay-in bodies decoded with the API's schemas (api/Schemas.ts), then checked for what a
 * schema of the spec cannot say: known operator and currency, the amount's unit, a mobile number of the
 * operator's country, http(s) URLs, e-mail, no blank text. Every refusal is keyed by field (dotted
 * under customer), one message per field, as envelope A lists them.
 */
import { Either, ParseResult, Schema } from "effect"
import { CardPayinRequest, MobileMoneyPayinRequest, PayoutRequest } from "../api/Schemas.ts"
import { isKnownCurrency, minorDigits } from "../domain/Money.ts"
import { cardOperator, mobileOperator } from "../domain/Operators.ts"
import { normaliseMobile } from "../domain/Phone.ts"
import { isEmail } from "../domain/Text.ts"
import { type FieldErrors, isObject, type JsonObject } from "./Http.ts"
import type { PayinInput } from "./Payins.ts"
import type { PayoutInput } from "./Payouts.ts"

export type ValidPayout = Omit<PayoutInput, "fee">
export type ValidPayin = Omit<PayinInput, "fee">

const OPTIONS = { errors: "all", onExcessProperty: "ignore" } as const
const payoutRequest = Schema.decodeUnknownEither(PayoutRequest, OPTIONS)
const mobilePayinRequest = Schema.decodeUnknownEither(MobileMoneyPayinRequest, OPTIONS)
const cardPayinRequest = Schema.decodeUnknownEither(CardPayinRequest, OPTIONS)
type Kind = "payout" | "mobile" | "card"

// The order refusals are listed in (a pay-in's envelope B joins them in this order).
const ORDER = ["operator", "currency", "amount", "phoneNumber", "return_url", "cancel_url", "callback_url", "description", "payout_details", "payment_details", "customer", "customer.name", "customer.phone", "customer.email"]
const CARD_AMOUNT = "The amount must be a positive whole number in the smallest currency unit (e.g. cents)."

const typeMessage = (key: string, kind: Kind): string => {
  if (key === "amount") return kind === "card" ? CARD_AMOUNT : "The amount must be a number."
  if (key === "customer") return "The customer must be an object with name, phone and email."
  return key.endsWith("_details") ? `The ${key} must be an object.` : `The ${key} must be a string.`
}

const valueAt = (body: JsonObject, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>((value, key) => (isObject(value) ? value[String(key)] : undefined), body)

/** The fields a body holds and what is wrong with them, first the schema's refusals. */
class Fields {
  readonly errors: FieldErrors = {}
  constructor(private readonly body: JsonObject, issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>, kind: Kind) {
    for (const issue of issues) {
      const key = issue.path.join(".")
      const absent = issue._tag === "Missing" || valueAt(body, issue.path) == null
      this.refuse(key, absent ? `The ${key} field is required.` : typeMessage(key, kind))
    }
  }

  refuse(key: string, message: string) {
    this.errors[key] ??= [message]
  }

  /** A text field the schema took, unless blank (refused as missing). */
  text(key: string): string | undefined {
    const value = this.errors[key] === undefined ? valueAt(this.body, key.split(".")) : undefined
    if (typeof value !== "string") return undefined
    if (value.trim() === "") return void this.refuse(key, `The ${key} field is required.`)
    return value
  }

  amount(): number | undefined {
    const value = this.errors.amount === undefined ? this.body.amount : undefined
    return typeof value === "number" ? value : undefined
  }

  url(key: string) {
    const value = this.text(key)
    if (value !== undefined && !isUrl(value)) this.refuse(key, `The ${key} must be a valid http or https URL.`)
  }

  /** The refusals in the order envelope A lists them, if any. */
  refusals(): FieldErrors | undefined {
    const keys = Object.keys(this.errors)
    if (keys.length === 0) return undefined
    const rank = (key: string) => (ORDER.includes(key) ? ORDER.indexOf(key) : ORDER.length)
    return Object.fromEntries(keys.sort((a, b) => rank(a) - rank(b)).map((key) => [key, this.errors[key]]))
  }
}

const isUrl = (text: string) => {
  const parsed = Either.try(() => new URL(text))
  return Either.isRight(parsed) && (parsed.right.protocol === "http:" || parsed.right.protocol === "https:")
}

/** An optional object sent as null reads as absent. */
const withoutNulls = (body: JsonObject): JsonObject => Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null))

const decode = <A>(decoder: (body: unknown) => Either.Either<A, ParseResult.ParseError>, kind: Kind, body: JsonObject) => {
  const decoded = decoder(withoutNulls(body))
  const fields = new Fields(body, Either.isLeft(decoded) ? ParseResult.ArrayFormatter.formatErrorSync(decoded.left) : [], kind)
  return { decoded, fields }
}

/** URLs, description and customer: what every request holds alike. */
const common = (fields: Fields) => {
  for (const key of ["return_url", "cancel_url", "callback_url"]) fields.url(key)
  for (const key of ["description", "customer.name", "customer.phone"]) fields.text(key)
  const email = fields.text("customer.email")
  if (email !== undefined && !isEmail(email)) fields.refuse("customer.email", "The customer.email must be a valid email address.")
}

/** operator, currency, amount (in minor units) and phoneNumber (E.164) of a payout or a mobile-money pay-in. */
const mobileMoney = (fields: Fields) => {
  const code = fields.text("operator")
  const operator = code === undefined ? undefined : mobileOperator(code)
  if (code !== undefined && operator === undefined) fields.refuse("operator", `The selected operator ${code} is invalid.`)
  const currency = fields.text("currency")
  if (currency !== undefined && !isKnownCurrency(currency)) fields.refuse("currency", `The currency ${currency} is not supported.`)
  else if (currency !== undefined && operator !== undefined && currency !== operator.currency) {
    fields.refuse("currency", `The currency must be ${operator.currency} for operator ${operator.code}.`)
  }
  const amount = minorAmount(fields, currency !== undefined && isKnownCurrency(currency) ? currency : operator?.currency)
  const raw = fields.text("phoneNumber")
  const phone = raw === undefined || operator === undefined ? undefined : normaliseMobile(raw, operator.country)
  if (phone !== undefined && Either.isLeft(phone)) fields.refuse("phoneNumber", `The phoneNumber is not a valid mobile number for ${code}: ${phone.left}.`)
  return { amount, phone: phone !== undefined && Either.isRight(phone) ? phone.right : "" }
}

const minorAmount = (fields: Fields, currency: string | undefined): number => {
  const value = fields.amount() ?? 0
  const digits = currency === undefined ? 0 : minorDigits(currency)
  const minor = Math.round(value * 10 ** digits)
  if (fields.amount() === undefined) return minor
  if (!Number.isFinite(value)) fields.refuse("amount", "The amount must be a number.")
  else if (value <= 0) fields.refuse("amount", "The amount must be greater than 0.")
  else if (currency !== undefined && Math.abs(minor / 10 ** digits - value) > 1e-9) {
    fields.refuse("amount", digits === 0 ? `The amount must be a whole number for ${currency}.` : `The amount must have at most ${digits} decimals for ${currency}.`)
  } else if (currency !== undefined && !Number.isSafeInteger(minor)) fields.refuse("amount", "The amount is too large.")
  return minor
}

type Decoded = PayoutRequest | MobileMoneyPayinRequest | CardPayinRequest

/** What a payout and a pay-in keep of their request alike. */
const shared = (request: Decoded, amount: number) => ({
  amount,
  currency: request.currency,
  operator: request.operator,
  customer: { name: request.customer.name, phone: request.customer.phone, email: request.customer.email },
  description: request.description,
  callbackUrl: request.callback_url,
  returnUrl: request.return_url,
  cancelUrl: request.cancel_url
})

const result = <A extends Decoded, B>(decoded: Either.Either<A, unknown>, fields: Fields, valid: (request: A) => B): Either.Either<B, FieldErrors> => {
  const refusals = fields.refusals()
  if (refusals !== undefined || Either.isLeft(decoded)) return Either.left(refusals ?? {})
  return Either.right(valid(decoded.right))
}

export const decodePayout = (body: JsonObject): Either.Either<ValidPayout, FieldErrors> => {
  const { decoded, fields } = decode(payoutRequest, "payout", body)
  const { amount, phone } = mobileMoney(fields)
  common(fields)
  return result(decoded, fields, (request) => ({ ...shared(request, amount), phone, details: request.payout_details ?? null }))
}

export const decodeMobilePayin = (body: JsonObject): Either.Either<ValidPayin, FieldErrors> => {
  const { decoded, fields } = decode(mobilePayinRequest, "mobile", body)
  const { amount, phone } = mobileMoney(fields)
  common(fields)
  return result(decoded, fields, (request) => ({ ...shared(request, amount), phone, details: request.payment_details ?? null }))
}

/** Card amounts are integers in the smallest unit of the currency (USD and EUR: cents). */
export const decodeCardPayin = (body: JsonObject): Either.Either<ValidPayin, FieldErrors> => {
  const { decoded, fields } = decode(cardPayinRequest, "card", body)
  const code = fields.text("operator")
  const operator = code === undefined ? undefined : cardOperator(code)
  if (code !== undefined && operator === undefined) fields.refuse("operator", `The selected card operator ${code} is invalid (cardnet1, cardnet2).`)
  const currency = fields.text("currency")
  const currencies: ReadonlyArray<string> = operator?.currencies ?? ["USD", "EUR"]
  if (currency !== undefined && !currencies.includes(currency)) fields.refuse("currency", `The currency must be one of ${currencies.join(", ")}.`)
  const amount = fields.amount()
  if (amount !== undefined && (!Number.isSafeInteger(amount) || amount <= 0)) fields.refuse("amount", CARD_AMOUNT)
  common(fields)
  return result(decoded, fields, (request) => ({ ...shared(request, request.amount), phone: null, details: request.payment_details ?? null }))
}

/** A pay-in's refusals as envelope B's one error_message. */
export const errorMessage = (errors: FieldErrors): string => Object.values(errors).flat().join(" ")
