import { describe, expect, it } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { DateTime, Effect, Fiber, Option, TestClock, TestServices } from "effect"
import { ACCOUNT, ADAPTERS, newBatch, openStore, rowInputs, scopedStoreOn, tempDbPath } from "./fixtures.ts"
import { BatchId, Reference } from "../../src/domain/Ids.ts"

describe.each(ADAPTERS)("claims: the durable intent ($name)", (adapter) => {
  it.scoped("claimRows moves validated rows to submitting with intent, attempt and event", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(5))
      yield* TestClock.adjust("10 seconds")
      const claimed = yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 2 })
      expect(claimed.map((r) => [r.idx, r.state, r.attempts])).toEqual([
        [0, "submitting", 1],
        [1, "submitting", 1]
      ])
      expect(claimed.map((r) => Option.map(Option.fromNullable(r.intentAt), DateTime.toEpochMillis))).toEqual([
        Option.some(10_000),
        Option.some(10_000)
      ])
      const events = yield* store.batch(ACCOUNT, BatchId.make("b1")).events(0)
      expect(events.map((e) => [e.fromState, e.toState, e.source])).toEqual([["validated", "submitting", "claim"]])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).earliestIntent()).toEqual(Option.some(DateTime.unsafeMake(10_000)))
    })
  )

  it.scoped("claimRows by idx takes only rows still validated", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(5))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ idxs: [1, 3] })
      const claimed = yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ idxs: [3, 2, 1, 99] })
      expect(claimed.map((r) => r.idx)).toEqual([2])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ idxs: [] })).toEqual([])
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 10 })).map((r) => r.idx)).toEqual([0, 4])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 10 })).toEqual([])
    })
  )

  it.scoped("claimRows can keep to one currency", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const rows = rowInputs(6).map((r) => (r.idx % 2 === 0 ? r : { ...r, currency: "XOF", operator: "ORANGE_CIV" }))
      yield* store.createBatch(newBatch("b1"), rows)
      const claimed = yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 10, currency: "XOF" })
      expect(claimed.map((r) => r.idx)).toEqual([1, 3, 5])
    })
  )

  it.scoped("concurrent fibers never claim the same row", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(500))
      const claims = yield* Effect.all(
        Array.from({ length: 20 }, () => store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 30 })),
        { concurrency: "unbounded" }
      )
      const idxs = claims.flat().map((r) => r.idx)
      expect(idxs.length).toBe(500)
      expect(new Set(idxs).size).toBe(500)
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).countByState()).submitting).toBe(500)
    })
  )

  it.live("two connections on the same file never claim the same row", () =>
    Effect.gen(function* () {
      const filename = yield* adapter.location
      const a = yield* adapter.open(filename)
      const b = yield* adapter.open(filename)
      yield* a.store.createBatch(newBatch("b1"), rowInputs(2_000))
      const claimLoop = (store: typeof a.store) =>
        Effect.iterate([] as ReadonlyArray<number>, {
          while: (got) => got.length === 0 || got[got.length - 1] !== -1,
          body: (got) =>
            Effect.map(Effect.zipLeft(store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 25 }), Effect.yieldNow()), (rows) =>
              rows.length === 0 ? [...got, -1] : [...got, ...rows.map((r) => r.idx)]
            )
        })
      const [fromA, fromB] = yield* Effect.all([claimLoop(a.store), claimLoop(b.store)], { concurrency: 2 })
      const all = [...fromA, ...fromB].filter((idx) => idx >= 0)
      expect(all.length).toBe(2_000)
      expect(new Set(all).size).toBe(2_000)
      expect(fromA.length).toBeGreaterThan(1)
      expect(fromB.length).toBeGreaterThan(1)
      const events = yield* a.store.batch(ACCOUNT, BatchId.make("b1")).events()
      expect(events.length).toBe(2_000)
      yield* Effect.all([a.close, b.close])
    }).pipe(Effect.scoped)
  )

  it.scoped("releaseRows returns unsent claims to validated and nothing else", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 3 })
      yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 0, to: "pending", reference: Reference.make("r0"), source: "response" })
      const released = yield* store.batch(ACCOUNT, BatchId.make("b1")).releaseRows([0, 1, 2], "stopped before sending")
      expect(released).toEqual([1, 2])
      const row1 = yield* store.batch(ACCOUNT, BatchId.make("b1")).getRow(1).pipe(Effect.map(Option.getOrThrow))
      expect([row1.state, row1.attempts]).toEqual(["validated", 0])
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).events(1)).map((e) => [e.toState, e.source, e.detail])).toEqual([
        ["submitting", "claim", null],
        ["validated", "release", "stopped before sending"]
      ])
    })
  )
})

describe.each(ADAPTERS)("resend and delete ($name)", (adapter) => {
  it.scoped("claimForResend takes only rows still unknown, with a new intent and attempt", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 3 })
      yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransitions([
        { idx: 0, to: "unknown", source: "response" },
        { idx: 1, to: "unknown", source: "response" }
      ])
      yield* TestClock.adjust("15 minutes")
      const resent = yield* store.batch(ACCOUNT, BatchId.make("b1")).claimForResend([0, 1, 2], "no match after grace")
      expect(resent.map((r) => [r.idx, r.state, r.attempts, r.intentAt && DateTime.toEpochMillis(r.intentAt)])).toEqual([
        [0, "submitting", 2, 900_000],
        [1, "submitting", 2, 900_000]
      ])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).claimForResend([0, 1], "again")).toEqual([])
      const last = (yield* store.batch(ACCOUNT, BatchId.make("b1")).events(0)).at(-1)
      expect([last?.fromState, last?.toState, last?.source, last?.detail]).toEqual([
        "unknown", "submitting", "reconcile", "no match after grace"
      ])
    })
  )

  it.scoped("deleteBatch forgets a batch that never sent anything, and refuses otherwise", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("dry"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("dry")).deleteBatch()
      expect(yield* store.batch(ACCOUNT, BatchId.make("dry")).getBatch()).toEqual(Option.none())
      expect(yield* store.batch(ACCOUNT, BatchId.make("x")).existingIds(["id-0"])).toEqual([])

      yield* store.createBatch(newBatch("sent"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("sent")).claimRows({ limit: 1 })
      yield* store.batch(ACCOUNT, BatchId.make("sent")).releaseRows([0])
      const error = yield* Effect.flip(store.batch(ACCOUNT, BatchId.make("sent")).deleteBatch())
      expect(error.reason).toBe("Conflict")
      expect((yield* store.batch(ACCOUNT, BatchId.make("sent")).countByState()).validated).toBe(3)
    })
  )
})

// SQLite itself: its file lock shared by processes.
describe("a lock held by another process (SQLite)", () => {
  const holdLock = (filename: string) =>
    Effect.gen(function* () {
      const sql = yield* SqliteClient.make({ filename }).pipe(Effect.provide(Reactivity.layer))
      const conn = yield* sql.reserve
      yield* conn.executeUnprepared("BEGIN IMMEDIATE", [], undefined)
      return { end: (how: "COMMIT" | "ROLLBACK") => Effect.orDie(conn.executeUnprepared(how, [], undefined)) }
    }).pipe(Effect.orDie)

  // On the TestClock: the write's waits between tries are clock sleeps, so "still waiting" is a state
  // to reach (a retry pending) rather than a time to let pass.
  const retryPending = Effect.gen(function* () {
    while ((yield* TestClock.sleeps()).length === 0) yield* TestServices.provideLive(Effect.sleep("5 millis"))
  })

  it.scoped("a write waits for the lock, then goes through", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const { close, store } = yield* openStore(filename)
      yield* store.createBatch(newBatch("b1"), rowInputs(3))
      const other = yield* holdLock(filename)
      expect((yield* TestClock.sleeps()).length).toBe(0)
      const claim = yield* Effect.fork(store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 3 }))
      yield* retryPending
      expect(Option.isNone(yield* Fiber.poll(claim))).toBe(true)
      // Many tries later (well within the 60 s lockTimeout) it is still waiting.
      yield* TestClock.adjust("5 seconds")
      yield* retryPending
      expect(Option.isNone(yield* Fiber.poll(claim))).toBe(true)
      yield* other.end("COMMIT")
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(claim)).length).toBe(3)
      yield* close
    })
  )

  it.live("a lock held past lockTimeout is a typed Busy error, and nothing was claimed", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const { close, store } = yield* openStore(filename, { lockTimeout: "300 millis" })
      yield* store.createBatch(newBatch("b1"), rowInputs(3))
      const other = yield* holdLock(filename)
      const error = yield* Effect.flip(store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 3 }))
      expect([error._tag, error.reason]).toEqual(["StoreError", "Busy"])
      yield* other.end("ROLLBACK")
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).countByState()).validated).toBe(3)
      yield* close
    }).pipe(Effect.scoped)
  )
})

describe.each(ADAPTERS)("leases: one runner per batch ($name)", (adapter) => {
  it.scoped("only one owner holds the lease until it expires or is released; every new lease gets a greater fence", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(1))
      const fenceOf = (owner: string) => store.batch(ACCOUNT, BatchId.make("b1")).acquireLease(owner, "30 seconds").pipe(Effect.map(Option.map((f) => f.number)))
      const a = yield* fenceOf("runner-a")
      expect(a).toEqual(Option.some(1))
      expect(yield* fenceOf("runner-b")).toEqual(Option.none())
      // Its holder acquiring again keeps its number.
      expect(yield* fenceOf("runner-a")).toEqual(Option.some(1))
      const held = yield* store.batch(ACCOUNT, BatchId.make("b1")).getBatch().pipe(Effect.map(Option.getOrThrow))
      expect(held.leaseOwner).toBe("runner-a")
      expect(held.leaseExpiresAt).toEqual(DateTime.unsafeMake(30_000))

      const fenceA = { owner: "runner-a", number: 1 }
      yield* TestClock.adjust("20 seconds")
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).renewLease(fenceA, "30 seconds")).toBe(true)
      yield* TestClock.adjust("20 seconds")
      expect(yield* fenceOf("runner-b")).toEqual(Option.none())

      yield* TestClock.adjust("11 seconds")
      expect(yield* fenceOf("runner-b")).toEqual(Option.some(2))
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).renewLease(fenceA, "30 seconds")).toBe(false)

      yield* store.batch(ACCOUNT, BatchId.make("b1")).releaseLease("runner-a")
      expect(yield* fenceOf("runner-c")).toEqual(Option.none())
      yield* store.batch(ACCOUNT, BatchId.make("b1")).releaseLease("runner-b")
      expect(yield* fenceOf("runner-c")).toEqual(Option.some(3))
      // The first owner again, after others held it: a new lease, a new number; its old fence is dead.
      yield* store.batch(ACCOUNT, BatchId.make("b1")).releaseLease("runner-c")
      expect(yield* fenceOf("runner-a")).toEqual(Option.some(4))
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).renewLease(fenceA, "30 seconds")).toBe(false)
    })
  )

  it.scoped("claims and transitions under a fence that was taken over write nothing", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(4))
      const a = Option.getOrThrow(yield* store.batch(ACCOUNT, BatchId.make("b1")).acquireLease("runner-a", "30 seconds"))
      const claimed = yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 2, fence: a })
      expect(claimed.map((r) => r.idx)).toEqual([0, 1])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransitions([{ idx: 0, from: ["submitting"], to: "submitted", reference: Reference.make("R0"), source: "response" }], a)).toEqual([true])

      // Runner a stalls past its lease; runner b takes the batch over.
      yield* TestClock.adjust("31 seconds")
      const b = Option.getOrThrow(yield* store.batch(ACCOUNT, BatchId.make("b1")).acquireLease("runner-b", "30 seconds"))
      expect(b.number).toBeGreaterThan(a.number)

      // Runner a wakes: its claim takes nothing, its answers are refused whole, the store unchanged.
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 2, fence: a })).toEqual([])
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).claimForResend([1], "resend", a)).toEqual([])
      const refused = yield* Effect.flip(
        store.batch(ACCOUNT, BatchId.make("b1")).recordTransitions([{ idx: 1, from: ["submitting"], to: "submitted", reference: Reference.make("R1"), source: "response" }], a)
      )
      expect(refused.reason).toBe("Fenced")
      const row1 = Option.getOrThrow(yield* store.batch(ACCOUNT, BatchId.make("b1")).getRow(1))
      expect([row1.state, row1.reference]).toEqual(["submitting", null])
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).events(1)).map((e) => e.toState)).toEqual(["submitting"])

      // The holder's writes go through.
      expect(yield* store.batch(ACCOUNT, BatchId.make("b1")).recordTransition({ idx: 1, from: ["submitting"], to: "unknown", source: "reconcile" }, b)).toBe(true)
      expect((yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ limit: 5, fence: b })).map((r) => r.idx)).toEqual([2, 3])
    })
  )

  it.scoped("a lease on a missing batch is NotFound", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const error = yield* Effect.flip(store.batch(ACCOUNT, BatchId.make("nope")).acquireLease("runner-a", "30 seconds"))
      expect(error.reason).toBe("NotFound")
    })
  )

  it.live("two connections racing for the lease: exactly one wins", () =>
    Effect.gen(function* () {
      const filename = yield* adapter.location
      const stores = yield* Effect.all(Array.from({ length: 4 }, () => adapter.open(filename)))
      yield* stores[0].store.createBatch(newBatch("b1"), rowInputs(1))
      const won = yield* Effect.all(
        stores.map(({ store }, i) => store.batch(ACCOUNT, BatchId.make("b1")).acquireLease(`runner-${i}`, "1 minute")),
        { concurrency: "unbounded" }
      )
      expect(won.filter(Option.isSome).length).toBe(1)
      yield* Effect.all(stores.map((s) => s.close))
    }).pipe(Effect.scoped)
  )
})
