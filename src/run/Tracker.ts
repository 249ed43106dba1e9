/**
 * Tracking: every sent payout is looked up with GET /payment/status until it is final, at growing
 * intervals (poll interval doubling up to poll max) and at once when a webhook names it. A webhook
 * is only a hint: the status lookup is what moves the row, and statuses only move forward.
 */
import { Clock, Deferred, Duration, Effect, Either, HashMap, Option, Queue, Ref } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { checkStatusRecord } from "../api/Plausible.ts"
import type { EventSource } from "../store/Model.ts"
import { AWAITING_STATUS_STATES, isFinal, SETTLED_FAILURE_STATES, stateOfStatus } from "../store/RowState.ts"
import * as PollQueue from "./PollQueue.ts"
import type { PollEntry } from "./PollQueue.ts"
import { RunContext } from "./RunContext.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import { Reference } from "../domain/Ids.ts"
import { makeRaiseAnomaly, underAlarm } from "./Anomaly.ts"

/** The row a payout is followed for: its status answers are held against its amount and currency. */
export interface Followed {
  readonly idx: number
  readonly amountMinor: number | null
  readonly currency: string
}

/** The longest the tracker sleeps before looking again at what is due. */
const IDLE_MS = 250

/** What changes together: taking due entries counts them as being looked up, in one step. */
interface State {
  readonly polls: PollQueue.PollQueue
  /** Entries taken off the queue and being looked up: the run is not done while any is. */
  readonly polling: number
  /**
   * Webhooks that came before their payout was followed (the POST's answer and its webhook race):
   * kept until then, so that payout is looked up at once rather than after --poll-max.
   */
  readonly early: HashMap.HashMap<string, number>
  readonly sweptAt: number
}

const EARLY_MAX = 10_000

/** What a turn takes to look up, and which of it a webhook named. */
type Taken = readonly [due: ReadonlyArray<PollEntry>, byWebhook: ReadonlySet<string>]

/**
 * One turn's change, in one step: webhooks wake the payouts they name (or are kept for a payout not yet
 * followed), early hints older than --poll-max go once a second, and what is due is taken as being looked up.
 */
const takeTurn = (s: State, woken: Iterable<string>, now: number, pollMaxMs: number, limit: number): readonly [Taken, State] => {
  let { polls, early, sweptAt } = s
  const byWebhook = new Set<string>()
  for (const reference of woken) {
    const waked = PollQueue.wake(polls, reference, now)
    if (Option.isSome(waked)) {
      polls = waked.value
      byWebhook.add(reference)
    } else if (HashMap.size(early) < EARLY_MAX) early = HashMap.set(early, reference, now)
  }
  if (HashMap.size(early) > 0 && now - sweptAt > 1_000) {
    sweptAt = now
    early = HashMap.filter(early, (at) => now - at <= pollMaxMs)
  }
  const [due, rest] = PollQueue.takeDue(polls, now, limit)
  return [[due, byWebhook], { polls: rest, polling: s.polling + due.length, early, sweptAt }]
}

const make = Effect.gen(function* () {
  const ctx = yield* RunContext
  const client = yield* PaymentClient
  const writer = yield* TransitionWriter
  const raiseAnomaly = yield* makeRaiseAnomaly
  const { settings, wakeups } = ctx
  const tracking = yield* Ref.make<State>({ polls: PollQueue.empty, polling: 0, early: HashMap.empty(), sweptAt: 0 })
  // Completed (and replaced) the moment the last payout followed is final: the run's loop ends at once.
  const idle = yield* Ref.make(yield* Deferred.make<void>())
  const wakeIdle = Effect.flatMap(Deferred.make<void>(), (next) =>
    Effect.flatMap(Ref.getAndSet(idle, next), (waited) => Deferred.succeed(waited, undefined)))
  const lookedUp = Ref.modify(tracking, (s): readonly [boolean, State] => {
    const polling = s.polling - 1
    return [polling === 0 && PollQueue.size(s.polls) === 0, { ...s, polling }]
  }).pipe(Effect.flatMap((nowIdle) => (nowIdle ? wakeIdle : Effect.void)))

  /**
   * Follows a payout until its status is final: the one place a row enters the poll queue, with the
   * one rule for its first look. `justSent`: the POST's answer came now, so the first lookup waits the
   * poll interval (or, when webhooks lead, `--poll-max`: a webhook will wake it sooner); otherwise
   * (resumed or adopted rows) its status is unknown to this run and is looked up at once.
   */
  const follow = Effect.fnUntraced(function* (row: Followed, reference: string, justSent: boolean) {
    // A row under alarm waits for a person (payouts resolve); its answers are not believed meanwhile.
    if (yield* underAlarm(ctx, row.idx)) return
    const now = yield* Clock.currentTimeMillis
    const first = !justSent ? settings.pollIntervalMs : settings.webhooks === true ? settings.pollMaxMs : settings.pollIntervalMs
    const { idx, amountMinor, currency } = row
    yield* Ref.update(tracking, (s) => {
      const hinted = HashMap.has(s.early, reference)
      const entry = { idx, reference, amountMinor, currency, dueAt: justSent && !hinted ? now + first : now, interval: first, since: now }
      return { ...s, polls: PollQueue.push(s.polls, entry), early: hinted ? HashMap.remove(s.early, reference) : s.early }
    })
  })

  const reschedule = (entry: PollEntry, now: number) => {
    // Past --track-timeout the row is no longer followed: it stays pending and the run ends incomplete.
    if (now - entry.since >= settings.trackTimeoutMs) return Effect.void
    const interval = Math.min(entry.interval * 2, settings.pollMaxMs)
    return Ref.update(tracking, (s) => ({ ...s, polls: PollQueue.push(s.polls, { ...entry, interval, dueAt: now + interval }) }))
  }

  const poll = (entry: PollEntry, source: EventSource) =>
    client.status(entry.reference).pipe(
      Effect.matchEffect({
        onFailure: (error) =>
          error._tag === "AuthError"
            ? Ref.set(ctx.stop, { _tag: "Auth", message: error.message })
            : Effect.flatMap(Clock.currentTimeMillis, (now) => reschedule(entry, now)),
        onSuccess: (record) =>
          Effect.gen(function* () {
            const fee = checkStatusRecord(record, entry, client.scrub)
            // Not followed further: the row waits for a person, and the answer is not stored.
            if (Either.isLeft(fee)) return yield* raiseAnomaly(ctx, entry.idx, fee.left, [entry.reference])
            const state = stateOfStatus(record.status)
            yield* writer.record({
              idx: entry.idx,
              from: AWAITING_STATUS_STATES,
              to: state,
              reference: Reference.make(entry.reference),
              feeMinor: fee.right,
              ...(SETTLED_FAILURE_STATES.includes(state) ? { error: record.status_description ?? record.status } : {}),
              source,
              detail: record.status_description ?? undefined
            })
            // A lookup that still shows a non-terminal status keeps the row under polling.
            if (!isFinal(state)) yield* reschedule(entry, yield* Clock.currentTimeMillis)
          })
      })
    )

  const pollDue = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const woken = yield* Queue.takeAll(wakeups)
    const [due, byWebhook] = yield* Ref.modify(tracking, (s) => takeTurn(s, woken, now, settings.pollMaxMs, settings.concurrency * 4))
    yield* Effect.forEach(
      due,
      (e) => poll(e, byWebhook.has(e.reference) ? "webhook" : "poll").pipe(Effect.ensuring(lookedUp)),
      { concurrency: settings.concurrency, discard: true }
    )
    if (due.length > 0) return
    const next = PollQueue.nextDueAt((yield* Ref.get(tracking)).polls)
    const wait = Math.max(1, Math.min(IDLE_MS, Option.match(next, { onNone: () => IDLE_MS, onSome: (at) => at - now })))
    // Sleep until something is due or a webhook arrives, whichever first.
    yield* Effect.raceFirst(
      Effect.sleep(Duration.millis(wait)),
      Queue.take(wakeups).pipe(Effect.flatMap((reference) => Queue.offer(wakeups, reference)))
    )
  })

  return {
    follow,
    /** Runs until interrupted. */
    run: Effect.forever(pollDue),
    /** Payouts still followed: queued or being looked up right now. */
    tracked: Effect.map(Ref.get(tracking), (s) => PollQueue.size(s.polls) + s.polling),
    /** Resolves when a lookup leaves nothing followed (never, while nothing is followed). */
    becomesIdle: Effect.flatMap(Ref.get(idle), Deferred.await)
  } as const
})

/** Follows every sent payout until it is final: it owns the poll queue, and only `follow` puts a payout in it. */
export class Tracker extends Effect.Service<Tracker>()("run/Tracker", { effect: make }) {}
