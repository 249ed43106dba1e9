import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Option, TestClock, TestContext } from "effect"
import * as fc from "fast-check"
import type { Transition } from "../../src/store/Model.ts"
import { canMove, isFinal, ROW_STATES, type RowState } from "../../src/store/RowState.ts"
import { ACCOUNT, ADAPTERS, newBatch, openStore, OTHER_ACCOUNT, rowInputs, scopedStoreOn } from "./fixtures.ts"
import type { scopedStore } from "./fixtures.ts"
import type { BatchStore } from "../kit/Store.ts"
import { BatchId, MinorUnits, Reference } from "../../src/domain/Ids.ts"

const getRow = (store: Effect.Effect.Success<typeof scopedStore>["store"], idx: number) =>
  store.batch(ACCOUNT, BatchId.make("b1")).getRow(idx).pipe(Effect.map(Option.getOrThrow))

describe.each(ADAPTERS)("transitions ($name)", (adapter) => {
  it.scoped("a payout's life: reference, fee, timestamps and one event per change", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(2))
      yield* TestClock.adjust("1 second")
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ idxs: [0] })
      yield* TestClock.adjust("1 second")
      expect(
        yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({
          idx: 0, to: "pending", reference: Reference.make("ref-0"), source: "response", detail: "HTTP 200"
        })
      ).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "pending", source: "poll" })).toBe(false)
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "processing", source: "poll" })).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(
        yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "completed", feeMinor: MinorUnits.make(50), source: "webhook" })
      ).toBe(true)
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "processing", source: "poll" })).toBe(false)

      const row = yield* getRow(store, 0)
      expect(row).toMatchObject({ state: "completed", reference: "ref-0", feeMinor: 50, attempts: 1 })
      expect([row.intentAt, row.submittedAt, row.finalAt, row.updatedAt].map((t) => t && DateTime.toEpochMillis(t))).toEqual([
        1_000, 2_000, 4_000, 4_000
      ])
      const events = yield* store.batch(ACCOUNT, BatchId.make("b1")).events(0)
      expect(events.map((e) => [DateTime.toEpochMillis(e.at), e.fromState, e.toState, e.source, e.detail])).toEqual([
        [1_000, "validated", "submitting", "claim", null],
        [2_000, "submitting", "pending", "response", "HTTP 200"],
        [3_000, "pending", "processing", "poll", null],
        [4_000, "processing", "completed", "webhook", null]
      ])
      expect(Option.map(yield* store.account(ACCOUNT).findRowByReference("ref-0"), (r) => r.idx)).toEqual(Option.some(0))
      expect(yield* store.account(OTHER_ACCOUNT).findRowByReference("ref-0")).toEqual(Option.none())
      expect(Option.map(yield* store.account(ACCOUNT).findRowByToken(row.token), (r) => r.idx)).toEqual(Option.some(0))
    })
  )

  it.scoped("completed may still become refunded; nothing else leaves a final state", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(2))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 2 })
      yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransitions([
        { idx: 0, to: "completed", reference: Reference.make("r0"), source: "response" },
        { idx: 1, to: "failed", reference: Reference.make("r1"), error: "declined", source: "response" }
      ])
      const again = yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransitions([
        { idx: 0, to: "refunded", source: "poll" },
        { idx: 1, to: "completed", source: "poll" },
        { idx: 1, to: "refunded", source: "poll" },
        { idx: 0, to: "completed", source: "poll" }
      ])
      expect(again).toEqual([true, false, false, false])
      expect((yield* getRow(store, 1)).error).toBe("declined")
    })
  )

  it.scoped("`from` narrows the move: an ambiguous POST only becomes unknown from submitting", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(1))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 1 })
      const unknown: Transition = { idx: 0, to: "unknown", from: ["submitting"], error: "timeout after send", source: "response" }
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition(unknown)).toBe(true)
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition(unknown)).toBe(false)
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).earliestIntent()).toEqual(Option.some(DateTime.unsafeMake(0)))
      yield* TestClock.adjust("10 minutes")
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "submitting", from: ["unknown"], source: "reconcile" })).toBe(true)
      const resent = yield* getRow(store, 0)
      expect([resent.attempts, resent.intentAt && DateTime.toEpochMillis(resent.intentAt)]).toEqual([2, 600_000])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "validated", source: "operator" })).toBe(false)
    })
  )

  it.scoped("a transition on a missing row is NotFound and rolls back the whole group", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(1))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 1 })
      const error = yield* Effect.flip(
        store.batch(ACCOUNT, BatchId.make("b1")).recordTransitions([
          { idx: 0, to: "pending", reference: Reference.make("r0"), source: "response" },
          { idx: 7, to: "pending", reference: Reference.make("r7"), source: "response" }
        ])
      )
      expect(error.reason).toBe("NotFound")
      expect((yield* getRow(store, 0)).state).toBe("submitting")
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).events(0)).length).toBe(1)
    })
  )

  it.scoped("a crash (store closed mid-run) loses nothing: claims stay submitting with their intent", () =>
    Effect.gen(function* () {
      const filename = yield* adapter.location
      const first = yield* adapter.open(filename)
      yield* first.store.createBatch(newBatch("crash"), rowInputs(10))
      yield* first.store.batch(ACCOUNT, BatchId.make("crash")).acquireLease("runner-a", "1 minute")
      yield* first.store.batch(ACCOUNT, BatchId.make("crash")).claimRows({ limit: 4 })
      yield* first.store.batch(ACCOUNT, BatchId.make("crash")).recordTransition({ idx: 0, to: "pending", reference: Reference.make("r0"), source: "response" })
      yield* first.close
      const second = yield* adapter.open(filename)
      expect(yield* second.store.batch(ACCOUNT, BatchId.make("crash")).countByState()).toMatchObject({ validated: 6, submitting: 3, pending: 1 })
      const inDoubt = yield* second.store.batch(ACCOUNT, BatchId.make("crash")).rowsInStates(["submitting", "unknown"])
      expect(inDoubt.map((r) => [r.idx, r.attempts, r.intentAt !== null])).toEqual([
        [1, 1, true],
        [2, 1, true],
        [3, 1, true]
      ])
      expect(Option.isNone(yield* second.store.batch(ACCOUNT, BatchId.make("crash")).acquireLease("runner-b", "1 minute"))).toBe(true)
      expect((yield* second.store.createBatch(newBatch("crash"), [])).state).toBe("open")
      yield* second.close
    })
  )
})

const arbTransition = fc.record({
  idx: fc.integer({ min: 0, max: 2 }),
  to: fc.constantFrom(...ROW_STATES),
  from: fc.option(fc.subarray([...ROW_STATES]), { nil: undefined }),
  reference: fc.option(fc.constantFrom("ref-a", "ref-b", "ref-c").map(Reference.make), { nil: undefined }),
  source: fc.constantFrom("response" as const, "poll" as const, "webhook" as const, "reconcile" as const)
})

describe("transitions, by property", () => {
  it("random sequences never leave a final state (but completed -> refunded), never lose a reference, log each change", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(arbTransition, fc.constant("claim" as const)), { maxLength: 40 }), (steps) =>
        Effect.gen(function* () {
          const { close, store } = yield* openStore(":memory:")
          yield* store.createBatch(newBatch("b1"), rowInputs(3))
          const model: Array<{ state: RowState; reference: string | null; changes: number }> = [0, 1, 2].map(() => ({
            state: "validated",
            reference: null,
            changes: 0
          }))
          for (const step of steps) {
            if (step === "claim") {
              const claimed = yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 1 })
              for (const row of claimed) model[row.idx] = { ...model[row.idx], state: "submitting", changes: model[row.idx].changes + 1 }
              continue
            }
            const before = model[step.idx]
            const applied = yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition(step)
            const expected = canMove(before.state, step.to) && (step.from === undefined || step.from.includes(before.state))
            expect(applied).toBe(expected)
            if (applied) {
              if (isFinal(before.state)) expect([before.state, step.to]).toEqual(["completed", "refunded"])
              model[step.idx] = {
                state: step.to,
                reference: before.reference ?? step.reference ?? null,
                changes: before.changes + 1
              }
            }
            const row = yield* store.batch(ACCOUNT, BatchId.make("b1")).getRow(step.idx).pipe(Effect.map(Option.getOrThrow))
            expect([row.state, row.reference]).toEqual([model[step.idx].state, model[step.idx].reference])
            if (before.reference !== null) expect(row.reference).toBe(before.reference)
          }
          for (const idx of [0, 1, 2]) {
            const events = yield* store.batch(ACCOUNT, BatchId.make("b1")).events(idx)
            expect(events.length).toBe(model[idx].changes)
            events.forEach((e, i) => i > 0 && expect(e.fromState).toBe(events[i - 1].toState))
          }
          yield* close
        }).pipe(Effect.runPromise)
      ),
      { numRuns: 150 }
    )
  })
})

// A group is written as one UPDATE of every row it moves (Sqlite/Transitions.ts): its result must be
// the one of the same transitions written one by one, whatever the order and repeats within it.
const arbTimedTransition = fc.record({
  idx: fc.integer({ min: 0, max: 3 }),
  to: fc.constantFrom(...ROW_STATES),
  from: fc.option(fc.subarray([...ROW_STATES]), { nil: undefined }),
  reference: fc.option(fc.constantFrom("ref-a", "ref-b").map(Reference.make), { nil: undefined }),
  feeMinor: fc.option(fc.integer({ min: 0, max: 500 }).map(MinorUnits.make), { nil: undefined }),
  error: fc.option(fc.constantFrom("refused", "timed out"), { nil: undefined }),
  source: fc.constantFrom("response" as const, "poll" as const, "reconcile" as const)
})

describe("transitions written as a group", () => {
  it("give every row (state, reference, fee, error, attempts, times) and event of the same transitions written one by one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 4 }), fc.array(arbTimedTransition, { maxLength: 30 }), (claims, steps) =>
        Effect.gen(function* () {
          const timed: Array<Transition> = steps.map((t, i) => ({ ...t, at: DateTime.unsafeMake(1_800_000_000_000 + i * 1_000) }))
          const outcome = function* (write: (b: BatchStore) => Effect.Effect<ReadonlyArray<boolean>, unknown>) {
            const opened = yield* openStore(":memory:")
            yield* opened.store.createBatch(newBatch("b1"), rowInputs(4))
            const batch = opened.store.batch(ACCOUNT, BatchId.make("b1"))
            yield* batch.claimRows({ limit: claims })
            const applied = yield* write(batch)
            const rows = []
            for (const idx of [0, 1, 2, 3]) {
              const row = yield* batch.getRow(idx).pipe(Effect.map(Option.getOrThrow))
              const events = yield* batch.events(idx)
              rows.push({
                ...[row.state, row.reference, row.feeMinor, row.error, row.attempts, row.intentAt, row.submittedAt, row.finalAt, row.endedAt, row.updatedAt],
                events: events.map((e) => [e.fromState, e.toState, e.source])
              })
            }
            yield* opened.close
            return { applied, rows }
          }
          const grouped = yield* Effect.gen(() => outcome((b) => b.recordTransitions(timed)))
          const single = yield* Effect.gen(() => outcome((b) => Effect.forEach(timed, (t) => b.recordTransition(t))))
          expect(grouped).toEqual(single)
          // A test clock: both stores create and claim their rows at the same instant.
        }).pipe(Effect.orDie, Effect.provide(TestContext.TestContext), Effect.runPromise)
      ),
      { numRuns: 150 }
    )
  })
})
