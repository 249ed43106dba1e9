/**
 * The ids the store and the service speak in, branded so one cannot be passed for another: an account
 * (the service's host plus its wallet ids), a batch (the file's content hash), a payout's reference
 * (the service's, DESIGN 7), and an amount in minor units.
 */
import { Schema } from "effect"

export const AccountId = Schema.String.pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type

export const BatchId = Schema.String.pipe(Schema.brand("BatchId"))
export type BatchId = typeof BatchId.Type

export const Reference = Schema.String.pipe(Schema.brand("Reference"))
export type Reference = typeof Reference.Type

/** An integer count of a currency's smallest unit (DESIGN: money is never a float). */
export const MinorUnits = Schema.Int.pipe(Schema.brand("MinorUnits"))
export type MinorUnits = typeof MinorUnits.Type
