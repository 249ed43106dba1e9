/** What the listing mirror keeps (DESIGN 7): payouts as the service lists them, by UTC day. */
import { Schema } from "effect"
import { MinorUnits } from "../domain/Ids.ts"

export const MirroredPayout = Schema.Struct({
  reference: Schema.String,
  /** The UTC day (YYYY-MM-DD) whose listing held it. */
  day: Schema.String,
  /** The `[token]` its description starts with, if it starts with one. */
  token: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  amountMinor: Schema.Int,
  currency: Schema.String,
  status: Schema.String,
  feeMinor: Schema.NullOr(MinorUnits),
  createdAt: Schema.NullOr(Schema.String),
  /** When a sync of ours first saw it (epoch ms): the listing lag is measured from this. */
  firstSeenAt: Schema.Number
})
export type MirroredPayout = typeof MirroredPayout.Type

export const MirrorDay = Schema.Struct({
  day: Schema.String,
  closed: Schema.transform(Schema.Number, Schema.Boolean, { strict: true, decode: (n) => n !== 0, encode: (b) => (b ? 1 : 0) }),
  hash: Schema.String,
  payouts: Schema.Int,
  maxTotal: Schema.Int,
  reads: Schema.Int,
  readAt: Schema.Number
})
export type MirrorDay = typeof MirrorDay.Type

/** One complete read of a day: every distinct payout, de-duplicated. */
export interface DayRead {
  readonly day: string
  readonly payouts: ReadonlyArray<Omit<MirroredPayout, "firstSeenAt" | "day">>
  readonly hash: string
  readonly maxTotal: number
  /** Close the day (never read again) once this read matches the previous one. */
  readonly closeIfSame: boolean
  readonly at: number
}

/** A payout of this account known to us by reference: a witness of what the listing shows. */
export const KnownPayout = Schema.Struct({
  reference: Schema.String,
  token: Schema.String,
  amountMinor: Schema.NullOr(Schema.Int),
  currency: Schema.String,
  /** When its answer (the reference) reached us. */
  answeredAt: Schema.Number,
  /** When the mirror first listed it; null while it is not listed. */
  listedAt: Schema.NullOr(Schema.Number),
  /** The read of its day before the one that first listed it; null when that was the day's first read. */
  listedPrevRead: Schema.NullOr(Schema.Number)
})
export type KnownPayout = typeof KnownPayout.Type

export const AccountAlarm = Schema.Struct({
  seq: Schema.Int,
  at: Schema.Number,
  reason: Schema.String
})
export type AccountAlarm = typeof AccountAlarm.Type
