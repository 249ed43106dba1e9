/**
 * The two answers of a payout's life (the POST's and the status lookup's), checked field by field in
 * plain code before the schema is asked. Their schema decode was most of `classify`'s CPU and its
 * largest allocator (a Schema.Class per level, a ParseResult per field). A quick check answers only
 * "this is the value, exactly as the schema would decode it" or "not sure"; on any doubt the caller
 * decodes with the schema, which alone words a refusal. `test/api/QuickDecode.test.ts` holds the two to
 * the same answers on hostile JSON.
 */
import { Reference } from "../domain/Ids.ts"
import { Customer, PayoutResponse, StatusRecord, StatusResponse } from "./Schemas.ts"

// Set by any field check that is not sure; read once the value is built (nothing here yields).
let doubt = false
const unsure = <A>(placeholder: A): A => {
  doubt = true
  return placeholder
}

type Json = Record<string, unknown>

/** A plain object: arrays (which a Struct also takes) and `__proto__` keys go to the schema. */
const object = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !Object.hasOwn(value, "__proto__")
    ? (value as Json)
    : undefined

const text = (value: unknown): string => (typeof value === "string" ? value : unsure(""))
const bool = (value: unknown): boolean => (typeof value === "boolean" ? value : unsure(false))
/** `Reference`: a branded string. */
const reference = (value: unknown): Reference => Reference.make(text(value), true)
/** `WireNumber`: a number; the string form it tolerates goes to the schema. */
const wireNumber = (value: unknown): number => (typeof value === "number" ? value : unsure(0))

/** What a class's constructor takes, writable: filled field by field in the schema's order. */
type Fields<C extends abstract new (...args: never) => unknown> = { -readonly [K in keyof ConstructorParameters<C>[0]]: ConstructorParameters<C>[0][K] }

/** Sets `key` when the source has it: `Schema.optional`, whose absent key stays absent. */
const optional = <T, K extends keyof T & string>(out: T, source: Json, key: K, check: (value: unknown) => T[K]) => {
  if (Object.hasOwn(source, key)) out[key] = check(source[key])
}
const orNull = <A>(check: (value: unknown) => A) => (value: unknown): A | null => (value === null ? null : check(value))

/** `Record(String, Unknown)`: a fresh object with the same keys. */
const details = (value: unknown): Json => {
  const source = object(value)
  if (source === undefined) return unsure({})
  const out: Json = {}
  for (const key of Object.keys(source)) out[key] = source[key]
  return out
}

const customer = (value: unknown): Customer | undefined => {
  const source = object(value)
  if (source === undefined) return unsure(undefined)
  return new Customer({ name: text(source.name), phone: text(source.phone), email: text(source.email) }, true)
}

const statusRecord = (value: unknown): StatusRecord | undefined => {
  const source = object(value)
  if (source === undefined) return unsure(undefined)
  const out: Fields<typeof StatusRecord> = {
    reference: reference(source.reference),
    amount: 0,
    currency: "",
    type: "",
    status: "",
    created_at: "",
    updated_at: ""
  }
  optional(out, source, "external_transaction_id", orNull(text))
  out.amount = wireNumber(source.amount)
  out.currency = text(source.currency)
  out.type = text(source.type)
  optional(out, source, "operator", orNull(text))
  out.status = text(source.status)
  optional(out, source, "status_description", orNull(text))
  out.fee = Object.hasOwn(source, "fee") ? wireNumber(source.fee) : 0
  out.created_at = text(source.created_at)
  out.updated_at = text(source.updated_at)
  optional(out, source, "payment_details", orNull(details))
  const who = Object.hasOwn(source, "customer") ? (source.customer === null ? null : customer(source.customer)) : undefined
  if (who !== undefined) out.customer = who
  return doubt ? undefined : new StatusRecord(out, true)
}

/** A status lookup's answer as `StatusResponse` decodes it, or undefined when not sure. */
export const quickStatusResponse = (json: unknown): StatusResponse | undefined => {
  const source = object(json)
  if (source === undefined) return undefined
  doubt = false
  const success = bool(source.success)
  const message = Object.hasOwn(source, "message") ? text(source.message) : undefined
  const data = statusRecord(source.data)
  if (doubt || data === undefined) return undefined
  return new StatusResponse(message === undefined ? { success, data } : { success, message, data }, true)
}

/** A payout POST's answer as `PayoutResponse` decodes it, or undefined when not sure. */
export const quickPayoutResponse = (json: unknown): PayoutResponse | undefined => {
  const source = object(json)
  if (source === undefined) return undefined
  doubt = false
  const out: Fields<typeof PayoutResponse> = { reference: reference(source.reference), status: "" }
  optional(out, source, "amount", wireNumber)
  optional(out, source, "currency", text)
  out.status = text(source.status)
  optional(out, source, "operator", text)
  optional(out, source, "message", text)
  optional(out, source, "phoneNumber", text)
  optional(out, source, "fee", wireNumber)
  optional(out, source, "estimated_delivery", text)
  return doubt ? undefined : new PayoutResponse(out, true)
}
