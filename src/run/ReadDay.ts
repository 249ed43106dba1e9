// One day (or span) of the listing read to completeness, page by page and bounded, and the hash a day's
// payouts are compared by when it is read again.
import { Effect, Either } from "effect"
import { createHash } from "node:crypto"
import type { TransactionsPage } from "../api/ClientApi.ts"
import { checkFee, quote, wireMinor } from "../api/Plausible.ts"
import { tokenOfDescription } from "../domain/Token.ts"
import type { DayRead } from "../store/MirrorModel.ts"
import { ListingGap } from "./ListingGap.ts"

export const PAGE_LIMIT = 100
/**
 * The most pages one read asks for: 200 pages of 100 is 20,000 payouts in a day (or a span read at
 * once), far above any real day of one account, and about 200 requests at most. A service claiming
 * more cannot be read to its claim: the day is incomplete (no resend relies on it), not read for ever.
 */
export const MAX_DAY_PAGES = 200

export type DayPayout = DayRead["payouts"][number]

interface DayReadParts {
  readonly payouts: ReadonlyArray<DayPayout>
  readonly maxTotal: number
  readonly pages: number
}

export type DayReadResult =
  | DayReadParts & { readonly complete: true }
  | DayReadParts & {
    readonly complete: false
    readonly gap: ListingGap
    /** Set when the service claimed more than MAX_DAY_PAGES pages hold: what it claimed. */
    readonly claimed?: { readonly total: number; readonly totalPages: number }
  }

/**
 * Reads one day to completeness. `fetch(page)` asks for one page of `limit` rows. Pages are asked by
 * number (links are not followed), repeated references count once, and reading goes on past a short or
 * empty page while fewer distinct payouts were seen than the largest `total` reported, up to a bound.
 */
export const readDay = <E, R>(
  fetch: (page: number) => Effect.Effect<TransactionsPage, E, R>,
  limit = PAGE_LIMIT
): Effect.Effect<DayReadResult, E, R> =>
  Effect.gen(function* () {
    const seen = new Map<string, DayPayout>()
    let maxTotal = 0
    let maxPages = 0
    for (let page = 1; ; page++) {
      const answer = yield* fetch(page)
      maxTotal = Math.max(maxTotal, answer.pagination.total)
      maxPages = Math.max(maxPages, answer.pagination.total_pages)
      for (const t of answer.transactions) {
        if (t.type !== "payout") continue
        const amount = wireMinor("amount", t.amount, t.currency)
        // A listed amount no payout can have: the day proves nothing (its payouts stay unknown).
        if (Either.isLeft(amount)) {
          return { complete: false, payouts: [...seen.values()], maxTotal, pages: page, gap: ListingGap.BadAmount({ shown: quote(t.reference), problem: amount.left }) }
        }
        const fee = checkFee(t.fee, amount.right, t.currency)
        seen.set(t.reference, {
          reference: t.reference,
          token: tokenOfDescription(t.description),
          description: t.description ?? null,
          amountMinor: amount.right,
          currency: t.currency,
          status: t.status,
          feeMinor: Either.getOrNull(fee),
          createdAt: t.created_at
        })
      }
      const short = answer.transactions.length < limit
      if (short && seen.size >= maxTotal) return { complete: true, payouts: [...seen.values()], maxTotal, pages: page }
      if (Math.ceil(maxTotal / limit) > MAX_DAY_PAGES || maxPages > MAX_DAY_PAGES) {
        return {
          complete: false,
          payouts: [...seen.values()],
          maxTotal,
          pages: page,
          gap: ListingGap.Overclaimed({ total: maxTotal, totalPages: maxPages, maxPages: MAX_DAY_PAGES, limit, pagesRead: page, count: seen.size }),
          claimed: { total: maxTotal, totalPages: maxPages }
        }
      }
      // Enough pages for every reported total, twice over (repeats shift rows to later pages), plus slack.
      const bound = Math.min(2 * Math.ceil(maxTotal / limit) + 3, MAX_DAY_PAGES)
      if (page >= bound) {
        return {
          complete: false,
          payouts: [...seen.values()],
          maxTotal,
          pages: page,
          gap: ListingGap.Short({ count: seen.size, total: maxTotal })
        }
      }
    }
  })

export const hashOf = (payouts: ReadonlyArray<DayPayout>): string =>
  createHash("sha256").update(payouts.map((p) => `${p.reference}|${p.description}|${p.amountMinor}|${p.currency}`).sort().join("\n")).digest("hex")
