/**
 * The sandbox's virtual clock: real time since start, scaled by `timeScale`, plus an offset moved
 * forward by `POST /__sandbox/clock/advance`. Every timestamp and due time of the sandbox is virtual.
 */
import { Clock, Effect, Ref } from "effect"

export interface VirtualClock {
  readonly timeScale: number
  readonly now: Effect.Effect<number>
  readonly advance: (seconds: number) => Effect.Effect<number>
  /** Virtual minus real time now: what a restart needs to carry on from the same virtual time. */
  readonly lead: Effect.Effect<number>
}

/** `lead` (ms) puts virtual time ahead of real time from the start (a restored clock). */
export const makeVirtualClock = (timeScale: number, lead = 0): Effect.Effect<VirtualClock> =>
  Effect.gen(function* () {
    const realStart = yield* Clock.currentTimeMillis
    const offset = yield* Ref.make(lead)
    const now = Effect.gen(function* () {
      const real = yield* Clock.currentTimeMillis
      return realStart + Math.floor((real - realStart) * timeScale) + (yield* Ref.get(offset))
    })
    return {
      timeScale,
      now,
      advance: (seconds) => Ref.update(offset, (o) => o + Math.round(seconds * 1000)).pipe(Effect.zipRight(now)),
      lead: Effect.zipWith(now, Clock.currentTimeMillis, (virtual, real) => virtual - real)
    }
  })

export const iso = (millis: number): string => new Date(millis).toISOString()

export const DAY = 24 * 60 * 60 * 1000
