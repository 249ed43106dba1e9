import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { makeDeadlines } from "../../src/api/Deadlines.ts"

const ms = Duration.millis

describe("Deadlines", () => {
  it.scoped("fires at its deadline, not before, once; a cancelled one never", () =>
    Effect.gen(function*() {
      const deadlines = yield* makeDeadlines
      const fired: Array<string> = []
      deadlines.add(ms(1000), () => fired.push("a"))
      const b = deadlines.add(ms(1000), () => fired.push("b"))
      deadlines.add(ms(1500), () => fired.push("c"))
      deadlines.cancel(b)
      yield* TestClock.adjust(ms(999))
      expect(fired).toEqual([])
      yield* TestClock.adjust(ms(1))
      expect(fired).toEqual(["a"])
      yield* TestClock.adjust(ms(10_000))
      expect(fired).toEqual(["a", "c"])
    }))

  it.scoped("a deadline earlier than the one slept on wakes the sleeper", () =>
    Effect.gen(function*() {
      const deadlines = yield* makeDeadlines
      const fired: Array<string> = []
      deadlines.add(ms(60_000), () => fired.push("late"))
      yield* TestClock.adjust(ms(10))
      deadlines.add(ms(100), () => fired.push("early"))
      yield* TestClock.adjust(ms(100))
      expect(fired).toEqual(["early"])
      yield* TestClock.adjust(ms(60_000))
      expect(fired).toEqual(["early", "late"])
    }))

  it.scoped("many requests settled out of order: each pending one fires once, in deadline order", () =>
    Effect.gen(function*() {
      const deadlines = yield* makeDeadlines
      const fired: Array<number> = []
      const entries = Array.from({ length: 500 }, (_, i) => deadlines.add(ms(1000 + (i % 7)), () => fired.push(i)))
      // Settle all but every 50th, newest first: the queue is compacted around the pending ones.
      for (let i = entries.length - 1; i >= 0; i--) if (i % 50 !== 0) deadlines.cancel(entries[i])
      // A cancel after firing changes nothing.
      yield* TestClock.adjust(ms(2000))
      entries.forEach((e) => deadlines.cancel(e))
      const expected = Array.from({ length: 10 }, (_, k) => k * 50).sort((x, y) => (x % 7) - (y % 7) || x - y)
      expect(fired).toEqual(expected)
      deadlines.add(ms(5), () => fired.push(-1))
      yield* TestClock.adjust(ms(5))
      expect(fired.at(-1)).toBe(-1)
    }))
})
