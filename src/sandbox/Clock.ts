/**
 * The sandbox's virtual clock: real time since start, scaled by `timeScale`, plus an offset moved
 * forward by `POST /__sandbox/clock/advance`. Every timestamp and due time of the sandbox is virtual.
 */
import { Clock, Effect, Ref } from "effect"

export interface VirtualClock {
  readonly timeScale: number
  readonly now: Effect.Effect<number>
  readonly advance: (seconds: number) => Effect.Effect<number>
}

export const makeVirtualClock = (timeScale: number): Effect.Effect<VirtualClock> =>
  Effect.gen(function* () {
    const realStart = yield* Clock.currentTimeMillis
    const offset = yield* Ref.make(0)
    const now = Effect.gen(function* () {
      const real = yield* Clock.currentTimeMillis
      return realStart + Math.floor((real - realStart) * timeScale) + (yield* Ref.get(offset))
    })
    return {
      timeScale,
      now,
      advance: (seconds) => Ref.update(offset, (o) => o + Math.round(seconds * 1000)).pipe(Effect.zipRight(now))
    }
  })

export const iso = (millis: number): string => new Date(millis).toISOString()

export const DAY = 24 * 60 * 60 * 1000
