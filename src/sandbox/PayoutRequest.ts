/** Validates a payout body field by field; every refusal is keyed by the field's name (dotted for customer). */
import { Either } from "effect"
import { isKnownCurrency, minorDigits } from "../domain/Money.ts"
import { mobileOperator } from "../domain/Operators.ts"
import { normaliseMobile } from "../domain/Phone.ts"
import { isEmail } from "../domain/Text.ts"
import { type FieldErrors, isObject, type JsonObject } from "./Http.ts"
import type { PayoutInput } from "./Payouts.ts"
import type { CustomerData } from "./State.ts"

export type ValidPayout = Omit<PayoutInput, "fee">

export const isUrl = (text: string) => {
  const parsed = Either.try(() => new URL(text))
  return Either.isRight(parsed) && (parsed.right.protocol === "http:" || parsed.right.protocol === "https:")
}

export const text = (errors: FieldErrors, body: JsonObject, field: string, label = field): string | undefined => {
  const value = body[field]
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
    errors[label] = [`The ${label} field is required.`]
    return undefined
  }
  if (typeof value !== "string") {
    errors[label] = [`The ${label} must be a string.`]
    return undefined
  }
  return value
}

export const url = (errors: FieldErrors, body: JsonObject, field: string): string | undefined => {
  const value = text(errors, body, field)
  if (value !== undefined && !isUrl(value)) errors[field] = [`The ${field} must be a valid http or https URL.`]
  return value !== undefined && isUrl(value) ? value : undefined
}

export const amountOf = (errors: FieldErrors, value: unknown, currency: string | undefined): number | undefined => {
  if (value === undefined || value === null) return void (errors.amount = ["The amount field is required."])
  if (typeof value !== "number" || !Number.isFinite(value)) return void (errors.amount = ["The amount must be a number."])
  if (value <= 0) return void (errors.amount = ["The amount must be greater than 0."])
  if (currency === undefined) return undefined
  const digits = minorDigits(currency)
  const minor = Math.round(value * 10 ** digits)
  if (Math.abs(minor / 10 ** digits - value) > 1e-9) {
    return void (errors.amount = [digits === 0 ? `The amount must be a whole number for ${currency}.` : `The amount must have at most ${digits} decimals for ${currency}.`])
  }
  if (!Number.isSafeInteger(minor)) return void (errors.amount = ["The amount is too large."])
  return minor
}

export const customerOf = (errors: FieldErrors, value: unknown): CustomerData | undefined => {
  if (value === undefined || value === null) return void (errors.customer = ["The customer field is required."])
  if (!isObject(value)) return void (errors.customer = ["The customer must be an object with name, phone and email."])
  const name = text(errors, value, "name", "customer.name")
  const phone = text(errors, value, "phone", "customer.phone")
  const email = text(errors, value, "email", "customer.email")
  if (email !== undefined && !isEmail(email)) errors["customer.email"] = ["The customer.email must be a valid email address."]
  return name !== undefined && phone !== undefined && email !== undefined && isEmail(email) ? { name, phone, email } : undefined
}

/** operator, currency, amount and phoneNumber: the fields a payout and a mobile-money pay-in share. */
export const mobileMoneyFields = (errors: FieldErrors, body: JsonObject) => {
  const operatorCode = text(errors, body, "operator")
  const operator = operatorCode === undefined ? undefined : mobileOperator(operatorCode)
  if (operatorCode !== undefined && operator === undefined) errors.operator = [`The selected operator ${operatorCode} is invalid.`]
  const currency = text(errors, body, "currency")
  if (currency !== undefined && !isKnownCurrency(currency)) errors.currency = [`The currency ${currency} is not supported.`]
  else if (currency !== undefined && operator !== undefined && currency !== operator.currency) {
    errors.currency = [`The currency must be ${operator.currency} for operator ${operator.code}.`]
  }
  const amount = amountOf(errors, body.amount, currency !== undefined && isKnownCurrency(currency) ? currency : operator?.currency)
  const rawPhone = text(errors, body, "phoneNumber")
  let phone: string | undefined
  if (rawPhone !== undefined && operator !== undefined) {
    const normalised = normaliseMobile(rawPhone, operator.country)
    if (Either.isLeft(normalised)) errors.phoneNumber = [`The phoneNumber is not a valid mobile number for ${operator.code}: ${normalised.left}.`]
    else phone = normalised.right
  }
  return { operator, currency, amount, phone }
}

export const validatePayout = (body: JsonObject): Either.Either<ValidPayout, FieldErrors> => {
  const errors: FieldErrors = {}
  const { amount, currency, operator, phone } = mobileMoneyFields(errors, body)
  const returnUrl = url(errors, body, "return_url")
  const cancelUrl = url(errors, body, "cancel_url")
  const callbackUrl = url(errors, body, "callback_url")
  const description = text(errors, body, "description")
  const details = body.payout_details
  if (details !== undefined && details !== null && !isObject(details)) errors.payout_details = ["The payout_details must be an object."]
  const customer = customerOf(errors, body.customer)
  if (Object.keys(errors).length > 0) return Either.left(errors)
  return Either.right({
    amount: amount!,
    currency: currency!,
    operator: operator!.code,
    phone: phone!,
    customer: customer!,
    description: description!,
    details: isObject(details) ? details : null,
    callbackUrl: callbackUrl!,
    returnUrl: returnUrl!,
    cancelUrl: cancelUrl!
  })
}
