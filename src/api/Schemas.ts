/**
 * The payment API v1 (../shared/spec/payment-api-v1.md), declared once. The sandbox serves these
 * shapes and the client decodes with them, so the two cannot drift.
 *
 * Amounts on the wire are numbers in the currency's major unit (card pay-ins: smallest unit); the
 * domain converts them to integer minor units. Numbers sent as strings are tolerated on decode
 * because the real service's serialiser is not specified.
 */
import { Schema, SchemaAST } from "effect"
import { Reference } from "../domain/Ids.ts"
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from "./TransactionFilters.ts"

// Described as a number (what the spec says is sent); the string form is only a decoding tolerance.
export const WireNumber = Schema.Union(Schema.Number, Schema.NumberFromString).annotations({ jsonSchema: { type: "number" } })

/**
 * Names a class's encoded side in the OpenAPI description: a class with a defaulted field has an
 * encoded side of its own, which JSON Schema generation would otherwise inline without a name.
 */
const describedAs = (name: string) => [undefined, undefined, { [SchemaAST.JSONIdentifierAnnotationId]: name }] as const
const Timestamp = Schema.String
const OptionalText = Schema.optional(Schema.NullOr(Schema.String))

export const TransactionType = Schema.Literal(...TRANSACTION_TYPES)
export type TransactionType = typeof TransactionType.Type

export const TransactionStatus = Schema.Literal(...TRANSACTION_STATUSES)
export type TransactionStatus = typeof TransactionStatus.Type

export class Wallet extends Schema.Class<Wallet>("Wallet")({
  id: Schema.String,
  currency: Schema.String,
  balance: WireNumber,
  pending_balance: WireNumber,
  reserved_balance: WireNumber,
  available_balance: WireNumber,
  last_updated: Timestamp
}) {}

export class WalletTransaction extends Schema.Class<WalletTransaction>("WalletTransaction")({
  id: Schema.String,
  reference: Reference,
  type: Schema.String,
  amount: WireNumber,
  fee: WireNumber,
  net_amount: WireNumber,
  currency: Schema.String,
  status: Schema.String,
  operator: OptionalText,
  customer_name: OptionalText,
  description: OptionalText,
  created_at: Timestamp
}) {}

export class PaginationLinks extends Schema.Class<PaginationLinks>("PaginationLinks")({
  next: Schema.optional(Schema.NullOr(Schema.String)),
  previous: Schema.optional(Schema.NullOr(Schema.String)),
  first: Schema.optional(Schema.NullOr(Schema.String)),
  last: Schema.optional(Schema.NullOr(Schema.String))
}) {}

export class Pagination extends Schema.Class<Pagination>("Pagination")({
  total: Schema.Int,
  count: Schema.Int,
  per_page: Schema.Int,
  current_page: Schema.Int,
  total_pages: Schema.Int,
  links: Schema.optionalWith(PaginationLinks, { default: () => new PaginationLinks({}) })
}, describedAs("Pagination")) {}

export class Customer extends Schema.Class<Customer>("Customer")({
  name: Schema.String,
  phone: Schema.String,
  email: Schema.String
}) {}

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  jsonSchema: { type: "object", description: "Free-form metadata." }
})

export class StatusRecord extends Schema.Class<StatusRecord>("StatusRecord")({
  reference: Reference,
  external_transaction_id: OptionalText,
  amount: WireNumber,
  currency: Schema.String,
  type: Schema.String,
  operator: OptionalText,
  status: Schema.String,
  status_description: OptionalText,
  fee: Schema.optionalWith(WireNumber, { default: () => 0 }),
  created_at: Timestamp,
  updated_at: Timestamp,
  payment_details: Schema.optional(Schema.NullOr(Details)),
  customer: Schema.optional(Schema.NullOr(Customer))
}, describedAs("StatusRecord")) {}

export class BalanceSummary extends Schema.Class<BalanceSummary>("BalanceSummary")({
  currency: Schema.String,
  total_balance: WireNumber,
  total_available: WireNumber,
  total_pending: WireNumber,
  total_reserved: WireNumber
}) {}

export class Last30Days extends Schema.Class<Last30Days>("Last30Days")({
  total_payin_count: Schema.Int,
  total_payin_amount: WireNumber,
  total_payout_count: Schema.Int,
  total_payout_amount: WireNumber,
  total_fee_amount: WireNumber
}) {}

export class WalletSummary extends Schema.Class<WalletSummary>("WalletSummary")({
  total_balance_summary: Schema.Array(BalanceSummary),
  transaction_summary: Schema.Struct({ last_30_days: Last30Days })
}) {}

// ---- Requests -------------------------------------------------------------------------------

const RequestBase = {
  amount: Schema.Number,
  currency: Schema.String,
  operator: Schema.String,
  return_url: Schema.String,
  cancel_url: Schema.String,
  callback_url: Schema.String,
  description: Schema.String,
  customer: Customer
}

export class PayoutRequest extends Schema.Class<PayoutRequest>("PayoutRequest")({
  ...RequestBase,
  phoneNumber: Schema.String,
  payout_details: Schema.optional(Details)
}) {}

export class MobileMoneyPayinRequest extends Schema.Class<MobileMoneyPayinRequest>("MobileMoneyPayinRequest")({
  ...RequestBase,
  phoneNumber: Schema.String,
  payment_details: Schema.optional(Details)
}) {}

export class CardPayinRequest extends Schema.Class<CardPayinRequest>("CardPayinRequest")({
  ...RequestBase,
  payment_details: Schema.optional(Details)
}) {}

// ---- Success payloads -----------------------------------------------------------------------

export class WalletsResponse extends Schema.Class<WalletsResponse>("WalletsResponse")({
  wallets: Schema.Array(Wallet)
}) {}

export class TransactionsResponse extends Schema.Class<TransactionsResponse>("TransactionsResponse")({
  success: Schema.Boolean,
  message: Schema.optional(Schema.String),
  data: Schema.Struct({ transactions: Schema.Array(WalletTransaction), pagination: Pagination })
}) {}

export class SummaryResponse extends Schema.Class<SummaryResponse>("SummaryResponse")({
  success: Schema.Boolean,
  message: Schema.optional(Schema.String),
  data: WalletSummary
}) {}

export class StatusResponse extends Schema.Class<StatusResponse>("StatusResponse")({
  success: Schema.Boolean,
  message: Schema.optional(Schema.String),
  data: StatusRecord
}) {}

export class PayoutResponse extends Schema.Class<PayoutResponse>("PayoutResponse")({
  reference: Reference,
  amount: Schema.optional(WireNumber),
  currency: Schema.optional(Schema.String),
  status: Schema.String,
  operator: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  phoneNumber: Schema.optional(Schema.String),
  fee: Schema.optional(WireNumber),
  estimated_delivery: Schema.optional(Schema.String)
}) {}

export class MobileMoneyPayinResponse extends Schema.Class<MobileMoneyPayinResponse>("MobileMoneyPayinResponse")({
  error: Schema.Literal(false),
  reference: Reference,
  status: Schema.String,
  message: Schema.optional(Schema.String),
  currency: Schema.optional(Schema.String)
}) {}

export class CardPayinResponse extends Schema.Class<CardPayinResponse>("CardPayinResponse")({
  error: Schema.Literal(false),
  reference: Reference,
  payment_url: Schema.String,
  status: Schema.String,
  error_message: Schema.optional(Schema.Null),
  amount: Schema.optional(WireNumber),
  currency: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.String)
}) {}

// ---- Error envelopes ------------------------------------------------------------------------

/** Envelope A: wallet, transactions, status, payout. */
export class EnvelopeA extends Schema.Class<EnvelopeA>("EnvelopeA")({
  success: Schema.Literal(false),
  message: Schema.String,
  errors: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }), {
    default: () => ({})
  })
}, describedAs("EnvelopeA")) {}

/** Envelope B: both pay-ins. Its `status` may read `success` even on failure. */
export class EnvelopeB extends Schema.Class<EnvelopeB>("EnvelopeB")({
  error: Schema.Literal(true),
  reference: Schema.optional(Schema.NullOr(Reference)),
  status: Schema.optional(Schema.String),
  error_message: Schema.String
}) {}

// ---- Webhooks (sandbox choice: the spec shows no payload) -----------------------------------

export class WebhookEvent extends Schema.Class<WebhookEvent>("WebhookEvent")({
  id: Schema.optional(Schema.String),
  event: Schema.String,
  data: StatusRecord
}) {}
