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
}

/** `lead` (ms) puts virtual time ahead of real time from the start (a restored clock). */
export const makeVirtualClock = (timeScale: number, lead = 0): Effect.Effect<VirtualClock> =>
  Effect.gen(function* () {
    // The Clock service of the fiber starting the sandbox (a TestClock in tests), read synchronously.
    const clock = yield* Effect.clock
    const realStart = clock.unsafeCurrentTimeMillis()
    let offset = lead
    const unsafeNow = () => realStart + Math.floor((clock.unsafeCurrentTimeMillis() - realStart) * timeScale) + offset
    const now = Effect.sync(unsafeNow)
    return {
      timeScale,
      now,
      unsafeNow,
      advance: (seconds) =>
        Effect.sync(() => {
          offset += Math.round(seconds * 1000)
          return unsafeNow()
        }),
      lead: Effect.sync(() => unsafeNow() - clock.unsafeCurrentTimeMillis())
    }
  })

export const iso = (millis: number): string => new Date(millis).toISOString()

export const DAY = 24 * 60 * 60 * 1000
