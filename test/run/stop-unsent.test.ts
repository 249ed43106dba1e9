/**
 * UnsentRows, the record of which claimed rows have not begun their POST: a stop releases exactly
 * those, and a row is either released or sent, never both.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeUnsentRows } from "../../src/run/UnsentRows.ts"

describe("UnsentRows", () => {
  it.effect("a stop takes the rows still waiting, never one whose POST began", () =>
    Effect.gen(function* () {
      const unsent = yield* makeUnsentRows
      yield* unsent.claimed([1, 2, 3, 4])
      expect(yield* unsent.begin(1)).toBe(true)
      // Only once: a row begins its POST a single time.
      expect(yield* unsent.begin(1)).toBe(false)
      expect(yield* unsent.take(2)).toBe(true)
      expect(yield* unsent.close).toEqual([3, 4])
      // Stopped: nothing begins any more, and the released rows are nobody's to put back again.
      expect(yield* unsent.closed).toBe(true)
      expect(yield* unsent.begin(3)).toBe(false)
      expect(yield* unsent.take(3)).toBe(false)
      // Row 1 is sending: its answer ends it, and a second close has nothing to take.
      yield* unsent.done(1)
      expect(yield* unsent.close).toEqual([])
    }))

  it.effect("a try known not to have sent (new rate slot, 429) makes the row waiting again: a stop then releases it", () =>
    Effect.gen(function* () {
      const unsent = yield* makeUnsentRows
      yield* unsent.claimed([7])
      expect(yield* unsent.begin(7)).toBe(true)
      expect(yield* unsent.close).toEqual([])
      yield* unsent.retry(7)
      expect(yield* unsent.begin(7)).toBe(false)
      expect(yield* unsent.take(7)).toBe(true)
    }))

  it.effect("rows claimed again after their release are not dropped by the earlier send's end", () =>
    Effect.gen(function* () {
      const unsent = yield* makeUnsentRows
      yield* unsent.claimed([5])
      expect(yield* unsent.take(5)).toBe(true)
      yield* unsent.claimed([5])
      yield* unsent.done(5)
      expect(yield* unsent.begin(5)).toBe(true)
    }))
})
