/**
 * Tracking: every sent payout is looked up with GET /payment/status until it is final, at growing
 * intervals (poll interval doubling up to poll max) and at once when a webhook names it. A webhook
 * is only a hint: the status lookup is what moves the row, and statuses only move forward.
 */
import { Clock, Duration, Effect, Either, Queue, Ref } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { checkStatusRecord } from "../api/Plausible.ts"
import type { EventSource } from "../store/Model.ts"
import { AWAITING_STATUS_STATES, isFinal, SETTLED_FAILURE_STATES, stateOfStatus } from "../store/RowState.ts"
import { type PollEntry, PollQueue } from "./PollQueue.ts"
import { RunContext } from "./RunContext.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import { Reference } from "../domain/Ids.ts"
import { raiseAnomaly, underAlarm } from "./Anomaly.ts"

/** The row a payout is followed for: its status answers are held against its amount and currency. */
export interface Followed {
  readonly idx: number
  readonly amountMinor: number | null
  readonly currency: string
}

/** The longest the tracker sleeps before looking again at what is due. */
const IDLE_MS = 250

const make = Effect.gen(function* () {
  const ctx = yield* RunContext
  const client = yield* PaymentClient
  const writer = yield* TransitionWriter
  const polls = new PollQueue()
  // Entries taken off the queue and being looked up: the run is not done while any is.
  let polling = 0
  const { settings, wakeups } = ctx
  // Webhooks that came before their payout was followed (the POST's answer and its webhook race):
  // kept until then, so that payout is looked up at once rather than after --poll-max.
  const early = new Map<string, number>()
  const EARLY_MAX = 10_000
  let sweptAt = 0
  // Waiting for the moment the last payout followed is final (the run's loop, so it ends at once).
  let idleWaiters: Array<() => void> = []
  const lookedUp = Effect.sync(() => {
    polling--
    if (polling > 0 || polls.size > 0 || idleWaiters.length === 0) return
    const waiters = idleWaiters
    idleWaiters = []
    for (const wake of waiters) wake()
  })

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
    const hinted = early.delete(reference)
    const { idx, amountMinor, currency } = row
    polls.push({ idx, reference, amountMinor, currency, dueAt: justSent && !hinted ? now + first : now, interval: first, since: now })
  })

  const reschedule = (entry: PollEntry, now: number) => {
    // Past --track-timeout the row is no longer followed: it stays pending and the run ends incomplete.
    if (now - entry.since >= settings.trackTimeoutMs) return Effect.void
    const interval = Math.min(entry.interval * 2, settings.pollMaxMs)
    return Effect.sync(() => polls.push({ ...entry, interval, dueAt: now + interval, pos: undefined }))
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
    const byWebhook = new Set<string>()
    for (const reference of woken) {
      if (polls.wake(reference, now)) byWebhook.add(reference)
      else if (early.size < EARLY_MAX) early.set(reference, now)
    }
    if (early.size > 0 && now - sweptAt > 1_000) {
      sweptAt = now
      for (const [reference, at] of early) if (now - at > settings.pollMaxMs) early.delete(reference)
    }
    const due = polls.takeDue(now, settings.concurrency * 4)
    polling += due.length
    yield* Effect.forEach(
      due,
      (e) => poll(e, byWebhook.has(e.reference) ? "webhook" : "poll").pipe(Effect.ensuring(lookedUp)),
      { concurrency: settings.concurrency, discard: true }
    )
    if (due.length > 0) return
    const next = polls.nextDueAt()
    const wait = Math.max(1, Math.min(IDLE_MS, next === undefined ? IDLE_MS : next - now))
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
    tracked: Effect.sync(() => polls.size + polling),
    /** Resolves when a lookup leaves nothing followed (never, while nothing is followed). */
    becomesIdle: Effect.async<void>((resume) => {
      const wake = () => resume(Effect.void)
      idleWaiters.push(wake)
      return Effect.sync(() => {
        idleWaiters = idleWaiters.filter((w) => w !== wake)
      })
    })
  } as const
})

/** Follows every sent payout until it is final: it owns the poll queue, and only `follow` puts a payout in it. */
export class Tracker extends Effect.Service<Tracker>()("run/Tracker", { effect: make }) {}
