/**
 * What a data file holds, as schemas: the sandbox reads back only what it wrote itself, but a file
 * from another version (or edited by hand) should fail to load with a parse error, not restore a
 * half-shaped transaction. Fields added later are kept as they are (`onExcessProperty: "preserve"`).
 */
import { Schema } from "effect"

const Customer = Schema.Struct({ name: Schema.String, phone: Schema.String, email: Schema.String })

const Plan = Schema.Struct({
  processingAt: Schema.Number,
  finalAt: Schema.Number,
  outcome: Schema.Literal("completed", "failed", "cancelled", "expired"),
  description: Schema.String
})

const Wallet = Schema.Struct({
  id: Schema.String,
  currency: Schema.String,
  balance: Schema.Number,
  pending: Schema.Number,
  reserved: Schema.Number,
  lastUpdated: Schema.Number
})

const Transaction = Schema.Struct({
  seq: Schema.Number,
  id: Schema.String,
  reference: Schema.String,
  externalId: Schema.String,
  type: Schema.Literal("payout", "payin", "adjustment"),
  amount: Schema.Number,
  fee: Schema.Number,
  currency: Schema.String,
  status: Schema.String,
  statusDescription: Schema.String,
  operator: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  customer: Schema.NullOr(Customer),
  description: Schema.String,
  details: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  callbackUrl: Schema.NullOr(Schema.String),
  returnUrl: Schema.NullOr(Schema.String),
  cancelUrl: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  plan: Schema.NullOr(Plan),
  expiresAt: Schema.optional(Schema.Number),
  settleAt: Schema.optional(Schema.Number),
  settledAt: Schema.optional(Schema.Number)
})

const Entry = Schema.Struct({
  seq: Schema.Number,
  at: Schema.Number,
  kind: Schema.Literal("adjustment", "reserve", "release", "complete", "refund", "payin", "settle", "payin_refund"),
  reference: Schema.String,
  currency: Schema.String,
  balance: Schema.Number,
  pending: Schema.Number,
  reserved: Schema.Number
})

const keep = { onExcessProperty: "preserve" } as const

export const decodeWallets = Schema.decodeUnknown(Schema.parseJson(Schema.Record({ key: Schema.String, value: Wallet })), keep)
export const decodeTransaction = Schema.decodeUnknown(Schema.parseJson(Transaction), keep)
export const decodeEntry = Schema.decodeUnknown(Schema.parseJson(Entry), keep)
