/**
 * The listing mirror (DESIGN 7): the account's payout listing kept in the store by UTC day, so that
 * reconciliation, the pre-scan and `payouts reconcile --account` read local data after a sync.
 *
 * A day is read with `from_date` = `to_date` = that day until a short page, and the read counts as
 * complete only when it holds at least as many distinct references as every `pagination.total` the
 * service reported: `total_pages`, `links.next` and an empty page are not trusted on their own (a
 * service may lie about any one of them). A day older than the observed lag that reads the same twice
 * is closed and never read again, so a sync costs the open days only. A day whose claimed total needs
 * more than MAX_DAY_PAGES pages is not read further: it stays incomplete, said once, with the claim.
 */
import { Clock, Effect, Ref } from "effect"
import { PaymentClient } from "../api/Client.ts"
import type { TransactionsPage } from "../api/ClientApi.ts"
import type { ClientError } from "../api/Errors.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { DAY_MS, dayOf, daysBetween, dayStart } from "./ListingDays.ts"
import { ListingGap } from "./ListingGap.ts"
import { RunEvent, tell } from "./Notices.ts"
import { type DayPayout, hashOf, PAGE_LIMIT, readDay } from "./ReadDay.ts"
import type { AccountId } from "../domain/Ids.ts"

export interface SyncResult {
  /** When the sync began: a payout it did not see may still have been created before. */
  readonly at: number
  /** Days that are complete in the mirror after this sync (closed, or read completely now). */
  readonly complete: ReadonlySet<string>
  /** Days that could not be read completely, with why. */
  readonly incomplete: ReadonlyMap<string, ListingGap>
}

export interface SyncOptions {
  /** A day ending longer ago than this may close (read twice the same, then never again). */
  readonly closeAfterMs: number
  /** Log progress (a first sync of a busy account can take many pages). */
  readonly progress?: boolean
  /**
   * A closed day is trusted only if it closed at or after this time (epoch ms); one closed earlier is
   * read again. A resend needs the days read after the payout could have become visible (the end of
   * the ambiguous request plus the grace), whatever rule closed them.
   */
  readonly trustClosedAfter?: number
  /** Days already said to claim more than can be read (one notice per day and run): said ones are added. */
  readonly told?: Ref.Ref<ReadonlySet<string>>
}

/** Syncs the mirror for these days (oldest first); a day that cannot be read is left incomplete. */
export const syncDays = Effect.fn("ListingMirror.sync")(function* (accountId: AccountId, days: ReadonlyArray<string>, options: SyncOptions) {
    const mirror = yield* MirrorStore
    const client = yield* PaymentClient
    const at = yield* Clock.currentTimeMillis
    const known = new Map((yield* mirror.mirrorDays(accountId, days).pipe(Effect.orDie)).map((d) => [d.day, d]))
    const complete = new Set<string>()
    const incomplete = new Map<string, ListingGap>()
    const open = days.filter((day) => {
      const read = known.get(day)
      if (read?.closed === true && read.readAt >= (options.trustClosedAfter ?? 0)) complete.add(day)
      return !complete.has(day)
    })
    /** Keeps complete reads of days, in one write: a span of 90 days is one transaction, not 90. */
    const save = (reads: ReadonlyArray<{ readonly day: string; readonly payouts: ReadonlyArray<DayPayout>; readonly maxTotal: number }>) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        yield* mirror.saveDayReads(accountId, reads.map(({ day, maxTotal, payouts }) => ({
          day,
          payouts,
          hash: hashOf(payouts),
          maxTotal,
          closeIfSame: dayStart(day) + DAY_MS + options.closeAfterMs < now,
          at: now
        }))).pipe(Effect.orDie)
        for (const { day } of reads) complete.add(day)
      })

    // Many open days (a first sync, the pre-scan's 90 days): one read of the whole span first. When it
    // is complete, it holds every payout of every day inside it, each kept under its UTC day of
    // creation; only when it is not do the days get read one by one.
    let perDay = open
    if (open.length > 3) {
      const first = open[0]
      const last = open[open.length - 1]
      const span = yield* readDay((page: number) =>
        client.transactions({ type: "payout", from_date: first, to_date: last, page, limit: PAGE_LIMIT })
      ).pipe(Effect.either)
      if (span._tag === "Right" && span.right.complete) {
        const byDay = new Map<string, Array<DayPayout>>(open.map((d) => [d, []]))
        for (const p of span.right.payouts) {
          const created = p.createdAt === null ? NaN : Date.parse(p.createdAt)
          const day = Number.isFinite(created) ? dayOf(created) : last
          // A payout dated outside the open days (a closed day, a clock at the edge) is still kept.
          ;(byDay.get(day) ?? byDay.get(day < first ? first : last))!.push(p)
        }
        yield* save([...byDay].map(([day, payouts]) => ({ day, payouts, maxTotal: payouts.length })))
        perDay = []
        if (options.progress === true && span.right.pages > 1) yield* tell(RunEvent.ListingSpanRead({ days: open.length, payouts: span.right.payouts.length, pages: span.right.pages }))
      }
    }

    let done = 0
    const overclaimed: Array<readonly [string, ListingGap]> = []
    // A few days at a time: the shared request gate still holds the account's rate.
    yield* Effect.forEach(
      perDay,
      (day) =>
        Effect.gen(function* () {
          const fetch = (page: number): Effect.Effect<TransactionsPage, ClientError> =>
            client.transactions({ type: "payout", from_date: day, to_date: day, page, limit: PAGE_LIMIT })
          const read = yield* readDay(fetch).pipe(Effect.either)
          done++
          if (read._tag === "Left") {
            incomplete.set(day, ListingGap.Unread({ message: read.left.message }))
            return
          }
          const result = read.right
          if (!result.complete) {
            incomplete.set(day, result.gap)
            const said = options.told !== undefined && (yield* Ref.get(options.told)).has(day)
            if (result.claimed !== undefined && !said) overclaimed.push([day, result.gap])
            return
          }
          yield* save([{ day, payouts: result.payouts, maxTotal: result.maxTotal }])
          if (options.progress === true && perDay.length > 3 && (result.pages > 1 || done % 30 === 0 || done === perDay.length)) {
            yield* tell(RunEvent.ListingDaysRead({ done, of: perDay.length, day, payouts: result.payouts.length, pages: result.pages }))
          }
        }),
      { concurrency: 4, discard: true }
    )
    // Said once per sync (and, with `told`, once per day and run): which day, what was claimed, what was read.
    if (overclaimed.length > 0) {
      const sorted = overclaimed.sort(([a], [b]) => a.localeCompare(b))
      if (options.told !== undefined) yield* Ref.update(options.told, (said) => new Set([...said, ...sorted.map(([d]) => d)]))
      const [day, gap] = sorted[sorted.length - 1]
      yield* tell(RunEvent.ListingIncomplete({ day, gap, earlier: sorted.length - 1, from: sorted[0][0] }))
    }
    return { at, complete, incomplete } satisfies SyncResult
  })

/**
 * The UTC days of the service's listing that span [fromMs, toMs] of our clock: the service's clock may
 * differ (the sandbox's runs ahead with a time scale), so its days are found with its `Date` header,
 * asked with a wallet look-up when no answer has told it yet.
 */
export const serviceDays = Effect.fn("ListingMirror.serviceDays")(function* (fromMs: number, toMs: number) {
    const client = yield* PaymentClient
    if ((yield* client.serverSkew)._tag === "None") yield* client.wallets().pipe(Effect.ignore)
    const skew = (yield* client.serverSkew).pipe((o) => (o._tag === "Some" ? o.value : 0))
    return daysBetween(Math.min(fromMs, fromMs + skew), Math.max(toMs, toMs + skew) + 60_000)
  })
