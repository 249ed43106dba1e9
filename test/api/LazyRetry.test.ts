import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Fiber, Schedule, TestClock } from "effect"
import { retryLazily } from "../../src/api/LazyRetry.ts"

/** An attempt that fails `failures` times (error = its number), recording when each try ran. */
const flaky = (failures: number, tries: Array<number>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    tries.push(now)
    return tries.length <= failures ? Effect.fail(tries.length) : Effect.succeed("ok")
  })

const schedule = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

/** Runs to the end on the TestClock: the tries' times and the outcome. */
const drive = (retry: (self: Effect.Effect<string, number>) => Effect.Effect<string, number>, failures: number) =>
  Effect.gen(function* () {
    const tries: Array<number> = []
    const fiber = yield* Effect.fork(Effect.either(retry(flaky(failures, tries))))
    yield* TestClock.adjust("10 seconds")
    return { tries, outcome: yield* Fiber.join(fiber) }
  })

describe("retryLazily", () => {
  it.effect("tries at the same moments and ends the same way as Effect.retry", () =>
    Effect.gen(function* () {
      for (const failures of [0, 1, 2, 3, 4, 9]) {
        const options = { schedule, while: (e: number) => e < 100 }
        const eager = yield* drive((self) => Effect.retry(self, options), failures)
        const lazy = yield* drive((self) => retryLazily(self, options), failures)
        expect(lazy.tries.map((t) => t - lazy.tries[0])).toEqual(eager.tries.map((t) => t - eager.tries[0]))
        expect(lazy.outcome).toEqual(eager.outcome)
      }
    }))

  it.effect("an error the predicate refuses is not retried", () =>
    Effect.gen(function* () {
      const { tries, outcome } = yield* drive((self) => retryLazily(self, { schedule, while: (e) => e !== 1 }), 5)
      expect(tries).toHaveLength(1)
      expect(outcome).toEqual(Either.left(1))
    }))

  it.effect("a later error the predicate refuses ends the retries", () =>
    Effect.gen(function* () {
      const { tries, outcome } = yield* drive((self) => retryLazily(self, { schedule, while: (e) => e !== 2 }), 5)
      expect(tries).toHaveLength(2)
      expect(tries[1] - tries[0]).toBe(100)
      expect(outcome).toEqual(Either.left(2))
    }))
})
