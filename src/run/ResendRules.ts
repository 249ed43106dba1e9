/**
 * The resend decision of DESIGN 7, pure so that every branch is unit- and property-tested. A row whose
 * POST outcome is unknown is adopted when exactly one listed payout carries its `[token]`, amount and
 * currency; it is resent only when all seven rules hold; otherwise it waits, and a person decides once
 * nothing more can be proven. "I cannot see it" never becomes "it does not exist" by itself.
 */
import { Data } from "effect"
import type { ServiceTimes } from "../api/ServiceClock.ts"
import { carriesToken } from "../domain/Token.ts"
import type { KnownPayout, MirroredPayout } from "../store/MirrorModel.ts"
import { DAY_MS, dayOf, daysBetween, dayStart } from "./ListingDays.ts"
import { WaitReason } from "./WaitReason.ts"

export interface UnknownRow {
  readonly idx: number
  readonly token: string
  readonly amountMinor: number
  readonly currency: string
  /** When the intent was written, before the POST (epoch ms). */
  readonly intentAt: number
  /** When the ambiguous POST was known to have ended (epoch ms). */
  readonly endedAt: number
  /** Automatic resends already made for the row. */
  readonly resends: number
  /** Rule 5: the intent was written under this runner's lease, released by its owner, or its owner is dead. */
  readonly ownedHere: boolean
  /** Times of complete syncs (after endedAt) that did not list the token, oldest first. */
  readonly misses: ReadonlyArray<number>
}

export interface Evidence {
  readonly now: number
  /** Days the latest sync holds completely (read now, or closed). */
  readonly completeDays: ReadonlySet<string>
  /** Mirrored payouts carrying one of the rows' tokens (any amount), by token. */
  readonly byToken: ReadonlyMap<string, ReadonlyArray<MirroredPayout>>
  /** Payouts known to us by reference, answered since the earliest intent's day began. */
  readonly known: ReadonlyArray<KnownPayout>
  /** Mirrored payouts of those known references, by reference. */
  readonly listed: ReadonlyMap<string, MirroredPayout>
  /** The effective grace (already raised to its floor). */
  readonly graceMs: number
  readonly deadlineMs: number
  /** The service's clock minus ours, when known (with a declared clock: its Date minus the clock's prediction). */
  readonly skewMs: number | undefined
  /**
   * A sandbox's declared virtual clock (src/api/ServiceClock.ts): the service's days of our instants
   * are found with it. Times only: absence is still proven by the listing, as without it.
   */
  readonly clock?: ServiceTimes
  readonly resendUnknown: "after" | "never"
}

export type Decision =
  | { readonly _tag: "Adopt"; readonly idx: number; readonly payout: MirroredPayout; readonly evidence: string }
  | { readonly _tag: "Alarm"; readonly idx: number; readonly reason: string; readonly references: ReadonlyArray<string> }
  | { readonly _tag: "AccountAlarm"; readonly idx: number; readonly reason: string; readonly references: ReadonlyArray<string> }
  | { readonly _tag: "Resend"; readonly idx: number; readonly evidence: string }
  | { readonly _tag: "Wait"; readonly idx: number; readonly reason: WaitReason; readonly until?: number }

export const MIN_WITNESSES = 3
export const MAX_INTENT_AGE_MS = DAY_MS
export const MAX_SKEW_MS = 60_000

/** Whether a listed payout shows exactly what we sent: `[token]` at the start, amount, currency. */
export const faithful = (listed: MirroredPayout, token: string, amountMinor: number | null, currency: string): boolean =>
  carriesToken(listed.description, token) &&
  listed.currency === currency &&
  (amountMinor === null || listed.amountMinor === amountMinor)

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The days a decision for the row must see completely: the intent's day (and the one before) to today,
 * with the one-minute clock tolerance of rule 7 on the service's side.
 */
export const daysNeeded = (row: Pick<UnknownRow, "intentAt">, now: number): ReadonlyArray<string> =>
  daysBetween(row.intentAt - DAY_MS, now + MAX_SKEW_MS)

/**
 * daysNeeded on the service's days. With a declared clock: from the earliest service time the intent
 * can have had to the latest it can be now; undefined when the intent's service time cannot be told
 * (the clock was declared only after it).
 */
export const serviceDaysNeeded = (row: Pick<UnknownRow, "intentAt">, now: number, clock: ServiceTimes | undefined): ReadonlyArray<string> | undefined => {
  if (clock === undefined) return daysNeeded(row, now)
  const from = clock.earliest(row.intentAt)
  return from === undefined ? undefined : daysBetween(from - DAY_MS, clock.latest(now) + MAX_SKEW_MS)
}

/**
 * Whether a witness is listed on a day its answer can have fallen on by the declared clock (the day
 * before its service time included, for a payout created just before midnight); undefined when the
 * clock was declared only after its answer. A clock that does not place our own payouts where the
 * listing shows them describes another service: nothing is resent by it.
 */
const placedByClock = (clock: ServiceTimes, answeredAt: number, day: string): boolean | undefined => {
  const earliest = clock.earliest(answeredAt)
  return earliest === undefined ? undefined : daysBetween(earliest - DAY_MS, clock.latest(answeredAt) + MAX_SKEW_MS).includes(day)
}

export const decide = (row: UnknownRow, e: Evidence): Decision => {
  const carrying = e.byToken.get(row.token) ?? []
  const matches = carrying.filter((p) => carriesToken(p.description, row.token))
  const exact = matches.filter((p) => p.currency === row.currency && p.amountMinor === row.amountMinor)
  const refs = (ps: ReadonlyArray<MirroredPayout>) => ps.map((p) => p.reference)
  if (exact.length > 1) {
    return { _tag: "Alarm", idx: row.idx, reason: `${exact.length} payouts carry this row's token`, references: refs(exact) }
  }
  if (matches.length > exact.length) {
    return { _tag: "Alarm", idx: row.idx, reason: "a payout carries this row's token with another amount or currency", references: refs(matches) }
  }
  if (exact.length === 1) {
    const p = exact[0]
    return { _tag: "Adopt", idx: row.idx, payout: p, evidence: `listed ${p.reference} on ${p.day} carries [${row.token}], ${p.amountMinor} ${p.currency}` }
  }
  const wait = (reason: WaitReason, until?: number): Decision => ({ _tag: "Wait", idx: row.idx, reason, ...(until === undefined ? {} : { until }) })
  if (e.now - row.endedAt > e.deadlineMs) {
    return { _tag: "Alarm", idx: row.idx, reason: `no proof either way ${e.deadlineMs >= 300_000 ? `${Math.round(e.deadlineMs / 60_000)} min` : `${Math.round(e.deadlineMs / 1000)} s`} after the request ended (--reconcile-deadline)`, references: [] }
  }
  // Rule 7: an old intent, or clocks that disagree, cannot be reasoned about by elapsed time.
  if (e.now - row.intentAt >= MAX_INTENT_AGE_MS) {
    return { _tag: "Alarm", idx: row.idx, reason: "the intent is over 24 hours old", references: [] }
  }
  if (e.skewMs === undefined) return wait(WaitReason.ClockUnknown())
  if (Math.abs(e.skewMs) > MAX_SKEW_MS) return wait(WaitReason.ClockSkew({ seconds: Math.round(e.skewMs / 1000) }))
  // Rule 5: a stalled runner that wrote the intent may still send it.
  if (!row.ownedHere) return wait(WaitReason.OtherRunner())
  // Rule 1: complete days.
  const needed = serviceDaysNeeded(row, e.now, e.clock)
  if (needed === undefined) return wait(WaitReason.DayUnknown())
  const missing = needed.filter((d) => !e.completeDays.has(d))
  if (missing.length > 0) return wait(WaitReason.DaysIncomplete({ days: Data.array(missing) }))
  // Rule 2: witnesses.
  const windowStart = dayStart(dayOf(row.intentAt))
  const witnesses = e.known.filter((k) => k.answeredAt >= windowStart && k.token !== row.token)
  const altered: Array<string> = []
  let listedCount = 0
  let listedAfter = 0
  const lagging: Array<string> = []
  const misplaced: Array<string> = []
  for (const k of witnesses) {
    const listed = e.listed.get(k.reference)
    if (listed === undefined) {
      if (k.answeredAt <= row.endedAt) lagging.push(k.reference)
      continue
    }
    if (!faithful(listed, k.token, k.amountMinor, k.currency)) {
      altered.push(k.reference)
      continue
    }
    const placed = e.clock === undefined ? true : placedByClock(e.clock, k.answeredAt, listed.day)
    // A witness the declared clock cannot place is no witness (nor evidence against the clock).
    if (placed === undefined) continue
    if (!placed) {
      misplaced.push(k.reference)
      continue
    }
    listedCount++
    if (k.answeredAt > row.endedAt) listedAfter++
  }
  if (altered.length > 0) {
    return {
      _tag: "AccountAlarm",
      idx: row.idx,
      reason: `the listing shows ${altered.length} of our payouts altered (description, amount or currency): it cannot prove a payout absent`,
      references: altered.slice(0, 10)
    }
  }
  if (misplaced.length > 0) {
    return wait(WaitReason.Misplaced({ count: misplaced.length, example: misplaced[0] }))
  }
  if (lagging.length > 0) return wait(WaitReason.Lagging({ count: lagging.length, example: lagging[0] }))
  if (listedCount < MIN_WITNESSES) return wait(WaitReason.FewWitnesses({ listed: listedCount, needed: MIN_WITNESSES }))
  if (listedAfter === 0) return wait(WaitReason.NoLaterWitness())
  // Rule 3: the grace, from the end of the POST.
  if (e.now - row.endedAt < e.graceMs) return wait(WaitReason.Grace(), row.endedAt + e.graceMs)
  // Rule 4: two syncs at least half the grace apart both missed the token.
  const misses = row.misses.filter((t) => t >= row.endedAt)
  if (misses.length < 2 || misses[misses.length - 1] - misses[0] < e.graceMs / 2) {
    return wait(WaitReason.SecondSync(), (misses[0] ?? e.now) + e.graceMs / 2)
  }
  const evidence =
    `not listed in complete reads of ${needed.join(", ")} at ${iso(misses[0])} and ${iso(misses[misses.length - 1])} (${misses.length} syncs); ` +
    `${listedCount} witnesses listed faithfully (${listedAfter} answered after the request ended at ${iso(row.endedAt)}); ` +
    `grace ${Math.round(e.graceMs / 1000)} s`
  // Rule 6: at most one automatic resend; a second would be a guess about the first.
  if (row.resends >= 1) {
    return { _tag: "Alarm", idx: row.idx, reason: `resent once already and its outcome is unknown again; a person decides (${evidence})`, references: [] }
  }
  if (e.resendUnknown === "never") {
    return { _tag: "Alarm", idx: row.idx, reason: `provably not listed, but --resend-unknown never leaves the resend to a person (${evidence})`, references: [] }
  }
  return { _tag: "Resend", idx: row.idx, evidence }
}

/**
 * A listed payout's sample is taken as its upper bound (first listed minus our answer) only when the
 * read before the one that listed it came close enough: within this, or within the lower bound itself.
 */
export const SAMPLE_GAP_MS = 2_000

/**
 * One payout's evidence of the listing lag, or undefined when there is none. Evidence is a read of its
 * day, made after our answer, that did not list it: the lag was at least that read minus our answer
 * (the lower bound). When the first read that did list it came soon after, the lag was at most that
 * read minus our answer. When it came long after (a process dead in between, a sync delayed) the gap
 * says nothing about the service, and only the lower bound is evidence.
 */
export const lagSample = (k: KnownPayout, dayReads: ReadonlyMap<string, number>): number | undefined => {
  // The last read of its day that did not list it: the one before the first that did, or, while it is
  // not listed, the day's latest read.
  const missedAt = k.listedAt === null ? dayReads.get(dayOf(k.answeredAt)) : k.listedPrevRead
  if (missedAt === undefined || missedAt === null || missedAt < k.answeredAt) return undefined
  const lower = missedAt - k.answeredAt
  if (k.listedAt === null) return lower
  return k.listedAt - missedAt <= Math.max(lower, SAMPLE_GAP_MS) ? k.listedAt - k.answeredAt : lower
}

/**
 * The 99th percentile of the listing lag over the payouts with evidence (lagSample), capped.
 * `dayReads`: each day's latest read (epoch ms). A payout listed by the first read of its day after
 * our answer is no sample: how late that read came measures our syncing, not the service; nor is a
 * payout not listed yet counted beyond the last read that missed it (a dead process is no lag).
 */
export const p99Lag = (known: ReadonlyArray<KnownPayout>, dayReads: ReadonlyMap<string, number>, capMs: number): number => {
  const lags = known.flatMap((k) => {
    const lag = lagSample(k, dayReads)
    return lag === undefined ? [] : [lag]
  }).sort((a, b) => a - b)
  if (lags.length === 0) return 0
  const at = Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)
  return Math.min(capMs, lags[at])
}

export const LAG_CAP_MS = 6 * 60 * 60 * 1000

/** Rule 3's floor: request timeout + lease time + twice the p99 listing lag. */
export const graceFloor = (requestTimeoutMs: number, leaseTtlMs: number, lagMs: number): number =>
  requestTimeoutMs + leaseTtlMs + 2 * lagMs
