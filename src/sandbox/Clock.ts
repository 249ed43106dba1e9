/**
 * The sandbox's virtual clock: real time since start, scaled by `timeScale`, plus an offset moved
 * forward by `POST /__sandbox/clock/advance`. Every timestamp and due time of the sandbox is virtual.
 */
import { Effect, Ref } from "effect"

export interface VirtualClock {
  readonly timeScale: number
  readonly now: Effect.Effect<number>
  readonly advance: (seconds: number) => Effect.Effect<number>
  /** Virtual minus real time now: what a restart needs to carry on from the same virtual time. */
  readonly lead: Effect.Effect<number>
  /**
   * The `X-Sandbox-Clock` header value: the line virtual time follows since its last move, so a
   * client on this machine can tell which virtual day any of its own instants fell on (api/ServiceClock.ts).
   */
  readonly declaration: Effect.Effect<string>
}

interface Line {
  readonly offset: number
  readonly declared: string
}

/** `lead` (ms) puts virtual time ahead of real time from the start (a restored clock). */
export const makeVirtualClock = (timeScale: number, lead = 0): Effect.Effect<VirtualClock> =>
  Effect.gen(function* () {
    // The Clock service of the fiber starting the sandbox (a TestClock in tests) drives it afterwards too.
    const clock = yield* Effect.clock
    const realStart = yield* clock.currentTimeMillis
    const at = (real: number, offset: number) => realStart + Math.floor((real - realStart) * timeScale) + offset
    const declare = (since: number, offset: number) => `virtual; since=${since}; origin=${at(since, offset)}; scale=${timeScale}`
    const line = yield* Ref.make<Line>({ offset: lead, declared: declare(realStart, lead) })
    const now = Effect.zipWith(clock.currentTimeMillis, Ref.get(line), (real, { offset }) => at(real, offset))
    return {
      timeScale,
      now,
      advance: (seconds) =>
        Effect.flatMap(clock.currentTimeMillis, (real) =>
          Ref.modify(line, ({ offset }) => {
            const moved = offset + Math.round(seconds * 1000)
            return [at(real, moved), { offset: moved, declared: declare(real, moved) }]
          })),
      lead: Effect.zipWith(now, clock.currentTimeMillis, (virtual, real) => virtual - real),
      declaration: Effect.map(Ref.get(line), (l) => l.declared)
    }
  })

/** The response header by which the sandbox declares its virtual clock (never sent by a real service). */
export const CLOCK_HEADER = "x-sandbox-clock"

export const iso = (millis: number): string => new Date(millis).toISOString()

export const DAY = 24 * 60 * 60 * 1000
