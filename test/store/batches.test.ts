import { describe, expect, it } from "@effect/vitest"
import { Chunk, DateTime, Effect, Option, Stream, TestClock } from "effect"
import { rejectedRowToken as rowToken, TOKEN_LENGTH } from "../../src/domain/Token.ts"
import { ACCOUNT, ADAPTERS, newBatch, OTHER_ACCOUNT, rowInput, rowInputs, scopedStoreOn } from "./fixtures.ts"
import { AccountId, BatchId, Reference } from "../../src/domain/Ids.ts"

describe.each(ADAPTERS)("batches ($name)", (adapter) => {
  it.scoped("createBatch stores the batch open with its rows, tokens and details", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const batch = yield* store.createBatch(newBatch("b1"), [
        rowInput(0),
        rowInput(1, { rowId: null, details: {} }),
        rowInput(2, { state: "rejected", error: "line 4, amount: not a number", amountMinor: null })
      ])
      expect(batch).toMatchObject({ accountId: ACCOUNT, batchId: "b1", fileName: "b1.csv", state: "open" })
      expect(batch.options).toEqual({ concurrency: 8 })
      const rows = yield* Stream.runCollect(store.batch(ACCOUNT, BatchId.make("b1")).streamRows()).pipe(Effect.map(Chunk.toReadonlyArray))
      expect(rows.map((r) => [r.idx, r.line, r.state, r.attempts])).toEqual([
        [0, 2, "validated", 0],
        [1, 3, "validated", 0],
        [2, 4, "rejected", 0]
      ])
      expect(rows[0]).toMatchObject({ rowId: "id-0", token: rowInput(0).token, details: { shop: "shop-0" } })
      expect(rows[1].rowId).toBeNull()
      expect(rows[2]).toMatchObject({ amountMinor: null, error: "line 4, amount: not a number" })
      expect(rows[2].finalAt).not.toBeNull()
    })
  )

  it.scoped("createBatch is idempotent: an existing batch comes back unchanged and its rows are not read", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const first = yield* store.createBatch(newBatch("b1"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 1 })
      const again = yield* store.createBatch(
        { ...newBatch("b1"), fileName: "renamed.csv" },
        Stream.die("rows of a known batch must not be read")
      )
      expect(again).toEqual(first)
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).countByState()).toMatchObject({ validated: 2, submitting: 1 })
    })
  )

  it.scoped("a batch left loading by a crash is completed from the same rows on the next createBatch", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const rows = rowInputs(2_500)
      const crashing = Stream.fromIterable(rows).pipe(Stream.take(1_200), Stream.concat(Stream.fail("disk unplugged")))
      expect(yield* Effect.flip(store.createBatch(newBatch("b1"), crashing))).toBe("disk unplugged")
      const loading = yield* store.batch(ACCOUNT, BatchId.make("b1")).getBatch()
      expect(Option.map(loading, (b) => b.state)).toEqual(Option.some("loading"))
      const partial = (yield* store.batch(ACCOUNT, BatchId.make("b1")).countByState()).validated
      expect(partial).toBeGreaterThanOrEqual(1_000)
      expect(partial).toBeLessThan(2_500)
      const done = yield* store.createBatch(newBatch("b1"), Stream.fromIterable(rows))
      expect(done.state).toBe("open")
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).countByState()).validated).toBe(2_500)
    })
  )

  it.scoped("the same batch id under two accounts is two independent batches", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1", ACCOUNT), rowInputs(3))
      yield* store.createBatch(newBatch("b1", OTHER_ACCOUNT), rowInputs(5))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 3 })
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).countByState()).toMatchObject({ validated: 0, submitting: 3 })
      expect(yield* store.batch(OTHER_ACCOUNT, BatchId.make("b1")).countByState()).toMatchObject({ validated: 5, submitting: 0 })
      expect((yield* store.account(OTHER_ACCOUNT).listBatches()).map((b) => [b.batchId, b.total, b.counts.validated])).toEqual([
        ["b1", 5, 5]
      ])
      expect(yield* store.batch(AccountId.make("nobody"), BatchId.make("b1")).getBatch()).toEqual(Option.none())
    })
  )

  it.scoped("listBatches counts rows per state for every batch of the account", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(4))
      yield* TestClock.adjust("1 millis")
      yield* store.createBatch(newBatch("b2"), rowInputs(2))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 3 })
      yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "pending", reference: Reference.make("ref-0"), source: "response" })
      const listed = yield* store.account(ACCOUNT).listBatches()
      expect(listed.map((b) => b.batchId)).toEqual(["b1", "b2"])
      expect(listed[0].counts).toMatchObject({ validated: 1, submitting: 2, pending: 1, completed: 0 })
      expect(listed[0].total).toBe(4)
      expect(listed[1].counts.validated).toBe(2)
    })
  )

  it.scoped("setBatchState records the state and pause reason; a missing batch is NotFound", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(1))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).setBatchState("paused", "authentication failed")
      const batch = yield* store.batch(ACCOUNT, BatchId.make("b1")).getBatch().pipe(Effect.map(Option.getOrThrow))
      expect([batch.state, batch.pauseReason]).toEqual(["paused", "authentication failed"])
      const error = yield* Effect.flip(store.batch(ACCOUNT, BatchId.make("nope")).setBatchState("done"))
      expect(error.reason).toBe("NotFound")
    })
  )

  it.scoped("streamRows pages by idx in file order without a gap or a repeat", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(2_345))
      const idxs = yield* Stream.runCollect(store.batch(ACCOUNT, BatchId.make("b1")).streamRows(100)).pipe(
        Effect.map((rows) => Chunk.toReadonlyArray(rows).map((r) => r.idx))
      )
      expect(idxs).toEqual(Array.from({ length: 2_345 }, (_, i) => i))
      const page = yield* store.batch(ACCOUNT, BatchId.make("b1")).rowsInStates(["validated"], { afterIdx: 99, limit: 10 })
      expect(page.map((r) => r.idx)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109])
    })
  )

  it.live("50,000 rows go in by chunks, quickly, and stream back", () =>
    Effect.gen(function* () {
      const filename = yield* adapter.location
      const { close, store } = yield* adapter.open(filename)
      const started = yield* DateTime.now
      yield* store.createBatch(newBatch("big"), Stream.range(0, 49_999).pipe(Stream.map((idx) => rowInput(idx))))
      const took = DateTime.distance(started, yield* DateTime.now)
      expect((yield* store.batch(ACCOUNT, BatchId.make("big")).countByState()).validated).toBe(50_000)
      const count = yield* Stream.runCount(store.batch(ACCOUNT, BatchId.make("big")).streamRows())
      expect(count).toBe(50_000)
      expect(took).toBeLessThan(20_000)
      yield* close
    }).pipe(Effect.scoped)
  )

  it("rowToken is short, deterministic and distinct per row", () => {
    const tokens = new Set(Array.from({ length: 100_000 }, (_, idx) => rowToken(BatchId.make("batch"), idx)))
    expect(tokens.size).toBe(100_000)
    expect(rowToken(BatchId.make("batch"), 7)).toBe(rowToken(BatchId.make("batch"), 7))
    expect(rowToken(BatchId.make("batch"), 7)).not.toBe(rowToken(BatchId.make("other"), 7))
    expect(rowToken(BatchId.make("batch"), 7)).toMatch(new RegExp(`^[a-z2-7]{${TOKEN_LENGTH}}$`))
    expect(TOKEN_LENGTH).toBeLessThanOrEqual(16)
  })
})
