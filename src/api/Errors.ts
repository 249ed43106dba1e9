/**
 * What a call to the payment API can end in, besides success. Each error says what the caller can
 * still do: `NotSent` is safe to send again, `OutcomeUnknown` goes to reconciliation (DESIGN.md 7).
 */
import { Schema } from "effect"

export const FieldErrors = Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })
export type FieldErrors = typeof FieldErrors.Type

export class AuthError extends Schema.TaggedError<AuthError>()("AuthError", {
  message: Schema.String
}) {}

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String,
  errors: FieldErrors
}) {}

/** A payout refused with `errors.amount`: the wallet cannot cover it (or an operator limit). */
export class InsufficientBalance extends Schema.TaggedError<InsufficientBalance>()("InsufficientBalance", {
  message: Schema.String,
  errors: FieldErrors
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String,
  reference: Schema.String
}) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  retryAfterMs: Schema.optional(Schema.Number)
}) {
  override get message() {
    return this.retryAfterMs === undefined ? "rate limited" : `rate limited, retry after ${this.retryAfterMs}ms`
  }
}

/** The request certainly never reached the server: sending it again cannot pay twice. */
export class NotSent extends Schema.TaggedError<NotSent>()("NotSent", {
  reason: Schema.String
}) {
  override get message() {
    return `request not sent: ${this.reason}`
  }
}

/** A POST was sent and no usable answer came back: the operation may have happened. */
export class OutcomeUnknown extends Schema.TaggedError<OutcomeUnknown>()("OutcomeUnknown", {
  reason: Schema.String,
  status: Schema.optional(Schema.Number)
}) {
  override get message() {
    return `outcome unknown: ${this.reason}`
  }
}

/** A GET that kept failing transiently after its retries. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  reason: Schema.String,
  status: Schema.optional(Schema.Number)
}) {
  override get message() {
    return `service unavailable: ${this.reason}`
  }
}

export class UnexpectedResponse extends Schema.TaggedError<UnexpectedResponse>()("UnexpectedResponse", {
  status: Schema.Number,
  excerpt: Schema.String
}) {
  override get message() {
    return `unexpected response (HTTP ${this.status}): ${this.excerpt}`
  }
}

/** Envelope B with `error: true` on a pay-in. */
export class PayinRefused extends Schema.TaggedError<PayinRefused>()("PayinRefused", {
  message: Schema.String,
  reference: Schema.optional(Schema.String)
}) {}

export const ClientError = Schema.Union(
  AuthError,
  ValidationError,
  InsufficientBalance,
  NotFound,
  RateLimited,
  NotSent,
  OutcomeUnknown,
  Unavailable,
  UnexpectedResponse,
  PayinRefused
)
export type ClientError = typeof ClientError.Type
