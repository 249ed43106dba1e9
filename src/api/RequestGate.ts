/**
 * One shared, adaptive request rate for every call to the service (DESIGN.md 8): a 429 halves the
 * rate and pauses everyone until Retry-After; successes creep it back up (additive increase).
 * Effect's RateLimiter has a fixed limit, hence this small service on Ref and Clock.
 *
 * Several workers of one account (DESIGN 12) share one budget: once `share` is given the store's
 * register, slots are reserved there, a few at a time (not a round trip per request), 429 pauses and
 * cuts are written there for every worker, and successes are counted there in batches.
 */
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Option, Ref, Schema } from "effect"
import { type GateRules, GateStateJson, type GateState, initialState, rateLimited, reserve, succeeded } from "./GateState.ts"

export interface RequestGateOptions {
  /** Ceiling in requests per second; undefined starts unlimited and adapts after the first 429. */
  readonly ratePerSecond?: number
  readonly minRate?: number
  /** Requests per second regained per second of successful calls at full speed. */
  readonly recoveryPerSecond?: number
  /** Pause after a 429 that carries no Retry-After. */
  readonly defaultPauseMs?: number
}

/** The account's gate state in the shared store: changed atomically, with the store's clock. */
export interface SharedGate {
  readonly modify: <A>(
    change: (value: Option.Option<string>, nowMs: number) => readonly [A, Option.Option<string>]
  ) => Effect.Effect<A, unknown>
}

interface Shared {
  readonly store: SharedGate
  /** Slots reserved in the store, in the store's clock, earliest first. */
  readonly pocket: ReadonlyArray<number>
  /** Store clock minus local clock, as measured at the last reservation. */
  readonly offset: number
  /** Successes not yet counted in the store. */
  readonly successes: number
  /** The shared rate as last read: how many slots to reserve at once. */
  readonly rate: number
}

/** Whose turn it is to wait for the next slot: held or not, and the callers waiting for it in order. */
interface Turns {
  readonly held: boolean
  readonly waiting: ReadonlyArray<Deferred.Deferred<void>>
}

const decodeState = Schema.decodeUnknownOption(GateStateJson)
const encodeState = Schema.encodeSync(GateStateJson)

/**
 * Several workers' requests reach the service with their own network and event-loop delays, so two
 * slots a spacing apart can arrive closer: the shared budget spaces them for 95% of --rate (20 spacings
 * at 20/s span 1,053 ms: 53 ms of bunching still fits in one second), so the
 * account stays under it in every second as the service counts.
 */
const SHARED_HEADROOM = 0.95

/**
 * A caller that wakes this long after its slot takes a new one (at most LATE_RETAKES times in a row).
 * Below the 53 ms the headroom leaves in a second: at 200 ms, a worker starved by a loaded machine
 * (not stopped) sent 50-200 ms late and the service saw 21 requests in a second at --rate 20
 * (workers soak, seed 13, load average 2.5).
 */
const LATE_WAKE_MS = 40
const LATE_RETAKES = 3

/** Reservations retried 250 ms apart while the store is away, before a process paces itself alone. */
const WAIT_FOR_STORE_TRIES = 40

/** A reserved slot this far in the past is stale: dropped rather than spent late. */
const STALE_SLOT_MS = 50

/**
 * The store's clock is read inside the reservation, after the register's lock: a reservation that
 * waited for the lock (other workers), for a slow machine or through a SIGSTOP reads it late or hears
 * back late, and the midpoint of its round trip misplaces the store's clock by up to half of it. Slots
 * mapped with that error land among another worker's (21-23 requests in a second at --rate 20, workers
 * soak seed 14 at load 10). As NTP does, the offset is taken from the quickest reservation of the last
 * CLOCK_WINDOW_MS, whose error is at most half of its (short) round trip.
 */
const CLOCK_WINDOW_MS = 30_000
const CLOCK_SAMPLES = 64

interface ClockSample {
  readonly at: number
  readonly roundTripMs: number
  readonly offset: number
}

/** The samples kept after `sample` (recent ones, at most CLOCK_SAMPLES) and the offset to use. */
export const bestOffset = (samples: ReadonlyArray<ClockSample>, sample: ClockSample) => {
  const kept = [...samples.filter((s) => sample.at - s.at <= CLOCK_WINDOW_MS), sample].slice(-CLOCK_SAMPLES)
  const quickest = kept.reduce((best, s) => (s.roundTripMs < best.roundTripMs ? s : best))
  return { kept, offset: quickest.offset }
}

/** About a tenth of a second's worth of slots per reservation: few round trips, no hoarding. */
const batchOf = (rate: number) => (Number.isFinite(rate) ? Math.max(1, Math.min(8, Math.ceil(rate / 10))) : 8)

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

    /** The next slot under the local rate: when it is due and when it was taken, both in local ms. */
    const reserveLocalAt = Effect.flatMap(Effect.zip(Clock.currentTimeMillis, Ref.getAndSet(busy, false)), ([now, behind]) =>
      Ref.modify(state, (s) => {
        const [[start], next] = reserve(s, now, 1, maxRate, behind ? LATE_WAKE_MS : 0)
        return [{ due: start, now }, next] as const
      })
    )
    const reserveLocal = Effect.map(reserveLocalAt, ({ due, now }) => due - now)

    /** Reserves a few slots in the store; on a store failure the local gate decides alone. */
    const draw = (current: Shared) =>
      Effect.gen(function*() {
        const sentAt = yield* Clock.currentTimeMillis
        const drawn = yield* current.store.modify((value, nowMs) => {
          const s0 = Option.getOrElse(Option.flatMap(value, decodeState), () => initialState(nowMs, maxRate))
          const [slots, s1] = reserve(succeeded(s0, current.successes, rules), nowMs, batchOf(Math.min(s0.rate, maxRate)), maxRate * SHARED_HEADROOM)
          return [{ slots, nowMs, rate: s1.rate, pausedUntil: s1.pausedUntil }, Option.some(encodeState(s1))] as const
        })
        const receivedAt = yield* Clock.currentTimeMillis
        const offset = yield* Ref.modify(clockSamples, (samples) => {
          const { kept, offset } = bestOffset(samples, { at: receivedAt, roundTripMs: receivedAt - sentAt, offset: drawn.nowMs - (sentAt + receivedAt) / 2 })
          return [offset, kept] as const
        })
        yield* Ref.update(state, (s) => ({ ...s, pausedUntil: Math.max(s.pausedUntil, drawn.pausedUntil - offset) }))
        // Taken meanwhile from the pocket by other callers: append to what is there now.
        yield* Ref.update(shared, (sh) =>
          Option.match(sh, {
            onNone: () => sh,
            onSome: (now) =>
              Option.some({
                ...now,
                pocket: [...now.pocket, ...drawn.slots],
                offset,
                // Successes counted meanwhile are the next reservation's to report.
                successes: Math.max(0, now.successes - current.successes),
                rate: drawn.rate
              })
          })
        )
      }).pipe(
        Effect.tap(() => Ref.set(storeFailures, 0)),
        Effect.as(true),
        // The store is away (a cut connection, a restart): the requests wait for it a little, since
        // pacing alone, every worker would spend the whole budget. Past that, this process paces
        // itself alone until the store answers again; the next reservation asks it again.
        Effect.catchAll((error) =>
          Effect.gen(function*() {
            const failures = yield* Ref.updateAndGet(storeFailures, (n) => n + 1)
            if (failures === 1) yield* Effect.logWarning(`the shared request budget could not be read (${String(error)}): waiting for the state store`)
            if (failures <= WAIT_FOR_STORE_TRIES) return yield* Effect.as(Effect.sleep(Duration.millis(250)), true)
            const wait = yield* reserveLocal
            if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
            return false
          })
        )
      )

    /** This caller's next slot, and the local time when it was taken (both local ms). */
    const reserveSlot: Effect.Effect<{ readonly due: number; readonly now: number }> = Effect.gen(function*() {
      for (;;) {
        const current = yield* Ref.get(shared)
        if (Option.isNone(current)) return yield* reserveLocalAt
        const localNow = yield* Clock.currentTimeMillis
        const taken = yield* Ref.modify(shared, (sh) => {
          if (Option.isNone(sh)) return [Option.none<number>(), sh] as const
          // A slot already past (this process was stopped, or slow to use it) is dropped, not spent:
          // spending a handful of them at once would burst above the account's rate.
          const fresh = sh.value.pocket.filter((slot) => slot - sh.value.offset >= localNow - STALE_SLOT_MS)
          return fresh.length > 0
            ? [Option.some(fresh[0] - sh.value.offset), Option.some({ ...sh.value, pocket: fresh.slice(1) })] as const
            : [Option.none<number>(), Option.some({ ...sh.value, pocket: [] })] as const
        })
        if (Option.isSome(taken)) {
          // Reserve the next slots before these run out: a worker never waits on the store between
          // two of its slots, and the new ones follow on from the account's last.
          const left = yield* Effect.map(Ref.get(shared), (sh) => (Option.isSome(sh) ? sh.value.pocket.length : Infinity))
          if (left <= Math.floor(batchOf(Option.getOrElse(Option.map(current, (c) => c.rate), () => maxRate)) / 2)) {
            yield* Effect.forkDaemon(
              drawing.withPermitsIfAvailable(1)(
                Effect.flatMap(Ref.get(shared), (sh) =>
                  Option.isSome(sh) && sh.value.pocket.length <= Math.floor(batchOf(sh.value.rate) / 2) ? draw(sh.value) : Effect.void
                )
              )
            )
          }
          return { due: taken.value, now: yield* Clock.currentTimeMillis }
        }
        // One reservation at a time: concurrent takers wait for it instead of each asking the store.
        const drawn = yield* drawing.withPermits(1)(
          Effect.flatMap(Ref.get(shared), (sh) => (Option.isSome(sh) && sh.value.pocket.length === 0 ? draw(sh.value) : Effect.succeed(true)))
        )
        // The store could not be asked: this caller was paced locally instead.
        if (!drawn) {
          const now = yield* Clock.currentTimeMillis
          return { due: now, now }
        }
      }
    })

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

/** Starts unlimited and adapts after the first 429. */
export const layerUnlimited: Layer.Layer<RequestGate> = RequestGate.Default
