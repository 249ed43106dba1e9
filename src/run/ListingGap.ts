/**
 * Why a day's listing could not be read completely (ListingMirror): facts that the notices, the
 * reconcile reports and `resolve` carry, worded by the command line (src/cli/ListingText.ts).
 */
import { Data } from "effect"

export type ListingGap = Data.TaggedEnum<{
  /** A page could not be fetched. */
  Unread: { readonly message: string }
  /** A listed payout has an amount no payout can have; `shown` is its reference, quoted safe to print. */
  BadAmount: { readonly shown: string; readonly problem: string }
  /** The service claims more payouts than `maxPages` pages of `limit` can hold. */
  Overclaimed: { readonly total: number; readonly totalPages: number; readonly maxPages: number; readonly limit: number; readonly pagesRead: number; readonly count: number }
  /** The pages ran out (up to their bound) before the total the service reported. */
  Short: { readonly count: number; readonly total: number }
}>

export const ListingGap = Data.taggedEnum<ListingGap>()
