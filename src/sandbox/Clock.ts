/**
 * The sandbox's virtual clock: real time since start, scaled by `timeScale`, plus an offset moved
 * forward by `POST /__sandbox/clock/advance`. Every timestamp and due time of the sandbox is virtual.
 */
import { Effect } from "effect"

export interface VirtualClock {
  readonly timeScale: number
  readonly now: Effect.Effect<number>
  /** `now` read directly, for the plain request handlers of the fast path (no fiber there to run an Effect). */
  readonly unsafeNow: () => number
  readonly advance: (seconds: number) => Effect.Effect<number>
  /** Virtual minus real time now: what a restart needs to carry on from the same virtual time. */
  readonly lead: Effect.Effect<number>
  /**
   * The `X-Sandbox-Clock` header value: the line virtual time follows since its last move (real ms
   * `since`, virtual ms `origin` then, `scale`), so a client on this machine can tell which virtual
   * day any of its own instants fell on (src/api/ServiceClock.ts reads it).
   */
  readonly declaration: () => string
}

/** `lead` (ms) puts virtual time ahead of real time from the start (a restored clock). */
export const makeVirtualClock = (timeScale: number, lead = 0): Effect.Effect<VirtualClock> =>
  Effect.gen(function* () {
    // The Clock service of the fiber starting the sandbox (a TestClock in tests), read synchronously.
    const clock = yield* Effect.clock
    const realStart = clock.unsafeCurrentTimeMillis()
    let offset = lead
    const at = (real: number) => realStart + Math.floor((real - realStart) * timeScale) + offset
    const unsafeNow = () => at(clock.unsafeCurrentTimeMillis())
    const now = Effect.sync(unsafeNow)
    // The start of the current line: the clock's start, or its latest advance (a jump the line before
    // it does not describe). Rebuilt only when it moves: every answer carries it.
    const declare = (since: number) => `virtual; since=${since}; origin=${at(since)}; scale=${timeScale}`
    let declared = declare(realStart)
    return {
      timeScale,
      now,
      unsafeNow,
      advance: (seconds) =>
        Effect.sync(() => {
          offset += Math.round(seconds * 1000)
          declared = declare(clock.unsafeCurrentTimeMillis())
          return unsafeNow()
        }),
      lead: Effect.sync(() => unsafeNow() - clock.unsafeCurrentTimeMillis()),
      declaration: () => declared
    }
  })

/** The response header by which the sandbox declares its virtual clock (never sent by a real service). */
export const CLOCK_HEADER = "x-sandbox-clock"

export const iso = (millis: number): string => new Date(millis).toISOString()

export const DAY = 24 * 60 * 60 * 1000
