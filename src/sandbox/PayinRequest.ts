/** Validates pay-in bodies (mobile money and card); refusals are joined into envelope B's error_message. */
import { Either } from "effect"
import { cardOperator } from "../domain/Operators.ts"
import { type FieldErrors, isObject, type JsonObject } from "./Http.ts"
import type { PayinInput } from "./Payins.ts"
import { customerOf, mobileMoneyFields, text, url } from "./PayoutRequest.ts"

export type ValidPayin = Omit<PayinInput, "fee">

export const errorMessage = (errors: FieldErrors): string => Object.values(errors).flat().join(" ")

const common = (errors: FieldErrors, body: JsonObject) => {
  const returnUrl = url(errors, body, "return_url")
  const cancelUrl = url(errors, body, "cancel_url")
  const callbackUrl = url(errors, body, "callback_url")
  const description = text(errors, body, "description")
  const details = body.payment_details
  if (details !== undefined && details !== null && !isObject(details)) errors.payment_details = ["The payment_details must be an object."]
  const customer = customerOf(errors, body.customer)
  return { returnUrl, cancelUrl, callbackUrl, description, details: isObject(details) ? details : null, customer }
}

const done = (errors: FieldErrors, fields: Record<string, unknown>, valid: () => ValidPayin): Either.Either<ValidPayin, FieldErrors> =>
  Object.keys(errors).length > 0 || Object.values(fields).some((v) => v === undefined) ? Either.left(errors) : Either.right(valid())

export const validateMobilePayin = (body: JsonObject): Either.Either<ValidPayin, FieldErrors> => {
  const errors: FieldErrors = {}
  const { amount, currency, operator, phone } = mobileMoneyFields(errors, body)
  const c = common(errors, body)
  return done(errors, { amount, currency, operator, phone, ...c }, () => ({
    amount: amount!,
    currency: currency!,
    operator: operator!.code,
    phone: phone!,
    customer: c.customer!,
    description: c.description!,
    details: c.details,
    callbackUrl: c.callbackUrl!,
    returnUrl: c.returnUrl!,
    cancelUrl: c.cancelUrl!
  }))
}

/** Card amounts are integers in the smallest unit of the currency (USD and EUR: cents). */
export const validateCardPayin = (body: JsonObject): Either.Either<ValidPayin, FieldErrors> => {
  const errors: FieldErrors = {}
  const operatorCode = text(errors, body, "operator")
  const operator = operatorCode === undefined ? undefined : cardOperator(operatorCode)
  if (operatorCode !== undefined && operator === undefined) errors.operator = [`The selected card operator ${operatorCode} is invalid (cardnet1, cardnet2).`]
  const currency = text(errors, body, "currency")
  const currencies: ReadonlyArray<string> = operator?.currencies ?? ["USD", "EUR"]
  if (currency !== undefined && !currencies.includes(currency)) errors.currency = [`The currency must be one of ${currencies.join(", ")}.`]
  const raw = body.amount
  let amount: number | undefined
  if (raw === undefined || raw === null) errors.amount = ["The amount field is required."]
  else if (typeof raw !== "number" || !Number.isSafeInteger(raw) || raw <= 0) {
    errors.amount = ["The amount must be a positive whole number in the smallest currency unit (e.g. cents)."]
  } else amount = raw
  const c = common(errors, body)
  return done(errors, { amount, currency, operator, ...c, details: 0 }, () => ({
    amount: amount!,
    currency: currency!,
    operator: operator!.code,
    phone: null,
    customer: c.customer!,
    description: c.description!,
    details: c.details,
    callbackUrl: c.callbackUrl!,
    returnUrl: c.returnUrl!,
    cancelUrl: c.cancelUrl!
  }))
}
