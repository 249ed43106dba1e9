import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, TestClock } from "effect"
import { ACCOUNT, ADAPTERS, newBatch, OTHER_ACCOUNT, rowInput, rowInputs, scopedStoreOn } from "./fixtures.ts"
import { BatchId } from "../../src/domain/Ids.ts"

describe.each(ADAPTERS)("cross-batch checks (DESIGN 5) ($name)", (adapter) => {
  it.scoped("existingIds finds ids of other batches of the same account only", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("old"), [
        rowInput(0),
        rowInput(1),
        rowInput(2, { rowId: "id-bad", state: "rejected", error: "bad phone" })
      ])
      yield* store.createBatch(newBatch("old", OTHER_ACCOUNT), [rowInput(5)])
      yield* store.createBatch(newBatch("new"), rowInputs(6))
      const found = yield* store.batch(ACCOUNT, BatchId.make("new")).existingIds(["id-0", "id-1", "id-bad", "id-5", "id-0"])
      expect(found).toEqual([
        { key: "id-0", batchId: "old", fileName: "old.csv", idx: 0, line: 2, state: "validated" },
        { key: "id-1", batchId: "old", fileName: "old.csv", idx: 1, line: 3, state: "validated" }
      ])
      expect(yield* store.batch(ACCOUNT, BatchId.make("old")).existingIds(["id-0"])).toEqual([
        expect.objectContaining({ key: "id-0", batchId: "new" })
      ])
      expect(yield* store.batch(OTHER_ACCOUNT, BatchId.make("x")).existingIds(["id-0", "id-1"])).toEqual([])
      expect(yield* store.batch(ACCOUNT, BatchId.make("new")).existingIds([])).toEqual([])
    })
  )

  it.scoped("existingIds handles more ids than one SQL statement takes", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("old"), rowInputs(3_000))
      const ids = Array.from({ length: 5_000 }, (_, i) => `id-${i}`)
      expect((yield* store.batch(ACCOUNT, BatchId.make("new")).existingIds(ids)).length).toBe(3_000)
    })
  )

  it.scoped("recentRepeats looks back to `since` in other batches of the account", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const key = rowInput(0).repeatKey!
      yield* store.createBatch(newBatch("day1"), [rowInput(0)])
      yield* TestClock.adjust("20 hours")
      yield* store.createBatch(newBatch("day1", OTHER_ACCOUNT), [rowInput(0)])
      yield* store.createBatch(newBatch("day2"), [rowInput(0)])
      yield* TestClock.adjust("10 hours")
      const now = yield* DateTime.now
      const since = DateTime.subtract(now, { hours: 24 })
      expect((yield* store.batch(ACCOUNT, BatchId.make("day3")).recentRepeats([key], since)).map((m) => m.batchId)).toEqual(["day2"])
      expect(yield* store.batch(ACCOUNT, BatchId.make("day2")).recentRepeats([key], since)).toEqual([])
      const longAgo = DateTime.subtract(now, { hours: 48 })
      expect((yield* store.batch(ACCOUNT, BatchId.make("day3")).recentRepeats([key], longAgo)).map((m) => m.batchId)).toEqual([
        "day1",
        "day2"
      ])
    })
  )

  it.scoped("a row claimed recently counts as recent even in an old batch", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("old"), rowInputs(2))
      yield* TestClock.adjust("3 days")
      yield* store.batch(ACCOUNT, BatchId.make("old")).claimRows({ idxs: [1] })
      const since = DateTime.subtract(yield* DateTime.now, { hours: 24 })
      const keys = rowInputs(2).map((r) => r.repeatKey!)
      expect((yield* store.batch(ACCOUNT, BatchId.make("new")).recentRepeats(keys, since)).map((m) => m.idx)).toEqual([1])
    })
  )
})
