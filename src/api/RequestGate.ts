/**
 * One shared, adaptive request rate for every call to the service (DESIGN.md 8): a 429 halves the
 * rate and pauses everyone until Retry-After; successes creep it back up (additive increase).
 * Effect's RateLimiter has a fixed limit, hence this small service on Ref and Clock.
 *
 * Several workers of one account (DESIGN 12) share one budget: once `share` is given the store's
 * register, slots are reserved there, a few at a time (not a round trip per request), 429 pauses and
 * cuts are written there for every worker, and successes are counted there in batches.
 */
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Option, Ref } from "effect"
import { type GateRules, type GateState, initialState, rateLimited, reserve, succeeded } from "./GateState.ts"
import { makeSlots } from "./GateSlots.ts"
import { type ClockSample, decodeState, encodeState, LATE_RETAKES, LATE_WAKE_MS, type RequestGateOptions, type Shared, type SharedGate, type Turns } from "./GateTunings.ts"

export const makeRequestGate = (options: RequestGateOptions = {}) =>
  Effect.gen(function*() {
    const maxRate = options.ratePerSecond ?? Number.POSITIVE_INFINITY
    const rules: GateRules = {
      maxRate,
      minRate: Math.min(options.minRate ?? 1, maxRate),
      recovery: options.recoveryPerSecond ?? Math.max(1, Number.isFinite(maxRate) ? maxRate / 20 : 1),
      defaultPauseMs: options.defaultPauseMs ?? 1000
    }
    const state = yield* Ref.make<GateState>(initialState(yield* Clock.currentTimeMillis, maxRate))
    const shared = yield* Ref.make(Option.none<Shared>())
    const drawing = yield* Effect.makeSemaphore(1)
    const clockSamples = yield* Ref.make<ReadonlyArray<ClockSample>>([])
    const storeFailures = yield* Ref.make(0)
    const turns = yield* Ref.make<Turns>({ held: false, waiting: [] })
    const spare = yield* Ref.make(Option.none<number>())
    const busy = yield* Ref.make(false)

    const { reserveSlot } = makeSlots({ maxRate, rules, state, shared, drawing, clockSamples, storeFailures, busy })

    /** Requests per second now allowed; Infinity while unlimited. */
    const currentRate: Effect.Effect<number> = Effect.map(Ref.get(shared), (sh) =>
      Option.match(sh, { onNone: () => undefined, onSome: (s) => Math.min(s.rate, maxRate) })
    ).pipe(Effect.flatMap((rate) => (rate === undefined ? Effect.map(Ref.get(state), (s) => s.rate) : Effect.succeed(rate))))

    /** Whether the rate is a limit now (unlimited callers take no turn: there is nothing to hand on). */
    const limited = Effect.map(currentRate, Number.isFinite)

    /**
     * This process's turn to wait for the next slot, first come first served: handed to exactly one
     * waiter (a Semaphore wakes every waiter on each release: ~80 of them here, 1.6-3 ms more CPU a payout).
     * Handed to a caller already waiting, the schedule goes on from its last slot even if that one was
     * sent a little late; handed to no one, the next caller starts it again (no burst after idle).
     */
    const handOn = (held: Ref.Ref<boolean>) =>
      Effect.flatMap(Ref.getAndSet(held, false), (was) =>
        was
          ? Effect.flatMap(
            Ref.modify(turns, (t): readonly [Deferred.Deferred<void> | undefined, Turns] =>
              t.waiting.length > 0 ? [t.waiting[0], { held: true, waiting: t.waiting.slice(1) }] : [undefined, { held: false, waiting: [] }]),
            (next) => (next === undefined ? Ref.set(busy, false) : Effect.zipRight(Ref.set(busy, true), Deferred.succeed(next, undefined)))
          )
          : Effect.void)

    /** Waits for the turn; interrupted while waiting, it leaves the line (or hands on a turn just given). */
    const takeTurn = (restore: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const mine = yield* Deferred.make<void>()
        const wait = yield* Ref.modify(turns, (t): readonly [boolean, Turns] =>
          t.held ? [true, { held: true, waiting: [...t.waiting, mine] }] : [false, { held: true, waiting: t.waiting }])
        const held = yield* Ref.make(true)
        if (wait) {
          yield* restore(Deferred.await(mine)).pipe(
            Effect.onInterrupt(() =>
              Effect.flatMap(
                Ref.modify(turns, (t): readonly [boolean, Turns] =>
                  t.waiting.includes(mine) ? [false, { ...t, waiting: t.waiting.filter((d) => d !== mine) }] : [true, t]),
                (given) => (given ? handOn(held) : Effect.void)
              ))
          )
        }
        return held
      })

    /** `body` within this caller's turn when the rate is a limit; the turn is handed on after it at the latest. */
    const inTurn = <A, E, R>(body: (held: Ref.Ref<boolean> | undefined) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(limited, (isLimited) =>
        isLimited
          ? Effect.uninterruptibleMask((restore) => Effect.flatMap(takeTurn(restore), (held) => restore(body(held)).pipe(Effect.ensuring(handOn(held)))))
          : body(undefined))

    /** A slot a check declined while its turn was held, if still fresh: else the next one. */
    const nextSlot = Effect.flatMap(Ref.getAndSet(spare, Option.none()), (left) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Option.isSome(left) && now - left.value <= LATE_WAKE_MS
          ? Effect.map(Ref.get(state), (s) => (s.pausedUntil > left.value ? undefined : { due: left.value, now }))
          : Effect.succeed(undefined)
      )).pipe(Effect.flatMap((slot) => (slot === undefined ? reserveSlot : Effect.succeed(slot))))

    /**
     * Waits for a slot under the current rate (a pause that began meanwhile is waited out too), then
     * asks `check`, the last thing before the request leaves (a POST's lease, halt and guards, which
     * can read the store). A caller late for its slot, from the wake or from the check, takes a new
     * one and asks again: sent late, it lands among the next slots' requests, above the rate in that
     * second (the workers soak at seed 14, load 8: 21-22 in a second at --rate 20). False: the check
     * said not to send. Without a check (a GET, `take`), the wake is the last moment.
     *
     * Callers wait their turn (first come, first served): one slot at a time is waited for, and its
     * check is asked before the next caller takes a slot (for LATE_WAKE_MS past the slot at most, so
     * a slow check holds no one up). A slot the check declines (a row its operator's probe window
     * holds back) goes to the next caller instead of passing unused: 14 rows held at the start of a
     * batch spent 14 slots (280 ms at 50/s), and the status lookup that would open the window waited
     * behind them.
     */
    const takeInTurn = <E, R>(check: Effect.Effect<boolean, E, R> | undefined): Effect.Effect<boolean, E, R> =>
      Effect.gen(function*() {
        let late = 0
        const tooLate = (due: number, now: number) => now - due > LATE_WAKE_MS && late++ < LATE_RETAKES
        /** One try: "sent" (go), "declined" (the check said no) or "again" (a new slot). */
        const attempt = inTurn((held) => Effect.gen(function*() {
          const slot = yield* nextSlot
          const due = Math.max(slot.due, slot.now)
          let now = slot.now
          if (due > now) {
            yield* Effect.sleep(Duration.millis(due - now))
            now = yield* Clock.currentTimeMillis
          }
          if ((yield* Ref.get(state)).pausedUntil > now) return "again" as const
          // Woken long after the slot (the process was stopped, or starved): the callers that slept
          // through it would all go at once, above the rate. A new slot is taken instead, a few times.
          if (tooLate(due, now)) return "again" as const
          if (check === undefined) return "sent" as const
          const watch = held === undefined ? undefined : yield* Effect.fork(Effect.zipRight(Effect.sleep(Duration.millis(Math.max(0, due + LATE_WAKE_MS - now))), handOn(held)))
          const go = yield* check
          if (watch !== undefined) yield* Fiber.interrupt(watch)
          if (!go) {
            if (held !== undefined && (yield* Ref.get(held))) yield* Ref.set(spare, Option.some(due))
            return "declined" as const
          }
          return tooLate(due, yield* Clock.currentTimeMillis) ? "again" as const : "sent" as const
        }))
        while (true) {
          const outcome = yield* attempt
          if (outcome !== "again") return outcome === "sent"
        }
      })

    /**
     * While nothing limits the rate (no ceiling, no 429 yet, no shared budget) the slot is now: taken
     * in one step (counted for the rate a first 429 halves), with no turn to wait and none to hand on.
     */
    const takeFree: Effect.Effect<boolean> = Effect.flatMap(Ref.get(shared), (sh) =>
      Option.isSome(sh)
        ? Effect.succeed(false)
        : Effect.clockWith((clock) =>
          Ref.modify(state, (s): readonly [boolean, GateState] => {
            const now = clock.unsafeCurrentTimeMillis()
            return Number.isFinite(s.rate) || s.pausedUntil > now ? [false, s] : [true, reserve(s, now, 1, maxRate)[1]]
          })
        ))

    const takeChecked = <E, R>(check: Effect.Effect<boolean, E, R> | undefined): Effect.Effect<boolean, E, R> =>
      Effect.flatMap(takeFree, (free) => (!free ? takeInTurn(check) : check === undefined ? Effect.succeed(true) : check))

    const take: Effect.Effect<void> = Effect.asVoid(takeChecked(undefined))

    const onRateLimited = (retryAfterMs?: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* Ref.update(state, (s) => rateLimited(s, now, retryAfterMs, rules))
        const current = yield* Ref.get(shared)
        if (Option.isNone(current)) return
        // Slots reserved before the pause would land in it: dropped, and the pause told to every worker.
        yield* Ref.set(shared, Option.some({ ...current.value, pocket: [] }))
        yield* current.value.store
          .modify((value, nowMs) => {
            const s0 = Option.getOrElse(Option.flatMap(value, decodeState), () => initialState(nowMs, maxRate))
            return [undefined, Option.some(encodeState(rateLimited(s0, nowMs, retryAfterMs, rules)))] as const
          })
          .pipe(Effect.ignore)
      })

    const onSuccess: Effect.Effect<void> = Effect.zipRight(
      Ref.update(state, (s) => succeeded(s, 1, rules)),
      Ref.update(shared, Option.map((sh) => ({ ...sh, successes: sh.successes + 1 })))
    )

    /** From now on the budget is the account's, shared with every worker through `store`. */
    const share = (store: SharedGate): Effect.Effect<void> =>
      Ref.set(shared, Option.some({ store, pocket: [], offset: 0, successes: 0, rate: maxRate }))

    return { take, takeChecked, onRateLimited, onSuccess, currentRate, share } as const
  })

export class RequestGate extends Effect.Service<RequestGate>()("api/RequestGate", {
  effect: makeRequestGate()
}) {
  static readonly layer = (options: RequestGateOptions): Layer.Layer<RequestGate> =>
    Layer.effect(RequestGate, Effect.map(makeRequestGate(options), (gate) => RequestGate.make(gate)))
}
