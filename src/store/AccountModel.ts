/** Account-wide records of the store: the halt (issue 12, item 14) and figures for the guards (item 13). */
import { Schema } from "effect"

/** An account-wide stop: no new payout leaves any runner of the account until it is lifted. */
export const Halt = Schema.Struct({
  at: Schema.Number,
  by: Schema.String,
  reason: Schema.String
})
export type Halt = typeof Halt.Type

/** What an approval bound (issue 12, item 1): who, when, and the batch's hash with its totals. */
export interface Approval {
  readonly by: string
  /** Epoch ms. */
  readonly at: number
  /** JSON: the batch id (the file's hash) and the totals per currency that were approved. */
  readonly what: string
}

/** Minor units sent (or possibly sent) per currency since a moment, across every batch of the account. */
export const SentTotal = Schema.Struct({
  currency: Schema.String,
  rows: Schema.Number,
  amountMinor: Schema.Number
})
export type SentTotal = typeof SentTotal.Type

export const PhoneCount = Schema.Struct({
  phone: Schema.String,
  payouts: Schema.Number
})
export type PhoneCount = typeof PhoneCount.Type
