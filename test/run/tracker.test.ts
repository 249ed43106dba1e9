/**
 * The tracker (src/run/Tracker.ts) with webhooks leading: a payout's first lookup waits --poll-max,
 * since its webhook wakes it sooner. A webhook may come before the POST's answer is recorded (they
 * race): it must not be lost, or that payout waits the whole --poll-max. Each answer is held to its row
 * (api/Plausible.ts): an absurd fee or another reference's record puts the row under alarm, leaves it
 * as it was (never completed, nothing stored) and stops following it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Queue, Ref, TestClock } from "effect"
import { StatusRecord } from "../../src/api/Schemas.ts"
import { BatchId, Reference } from "../../src/domain/Ids.ts"
import { RunContext } from "../../src/run/RunContext.ts"
import { Tracker } from "../../src/run/Tracker.ts"
import { TransitionWriter } from "../../src/run/TransitionWriter.ts"
import { ACCOUNT, newBatch, rowInputs } from "../store/fixtures.ts"
import { drive, fakeClient, runParts, scopedServices } from "./parts.ts"
import { settings } from "./support.ts"

const BATCH = BatchId.make("b1")

const completed = (reference: string, over: Partial<ConstructorParameters<typeof StatusRecord>[0]> = {}) =>
  new StatusRecord({
    reference: Reference.make(reference),
    amount: 5000,
    currency: "XAF",
    type: "payout",
    status: "completed",
    fee: 0,
    created_at: "2025-03-10T10:00:00Z",
    updated_at: "2025-03-10T10:00:01Z",
    ...over
  })

describe("Tracker", () => {
  it.scoped("a webhook that came before its payout was followed wakes it at once, not after --poll-max", () =>
    Effect.gen(function* () {
      const { services, store } = yield* scopedServices
      yield* store.createBatch(newBatch("b1"), rowInputs(2))
      const batch = store.batch(ACCOUNT, BATCH)
      const fence = Option.getOrThrow(yield* batch.acquireLease("runner", "1 hour"))
      yield* batch.claimRows({ limit: 2, fence })
      const looked = yield* Ref.make<ReadonlyArray<string>>([])
      const client = fakeClient({ status: (reference) => Effect.as(Ref.update(looked, (l) => [...l, reference]), completed(reference)) })
      yield* Effect.gen(function* () {
        const ctx = yield* RunContext
        const tracker = yield* Tracker
        yield* Effect.forkScoped(tracker.run)
        // The webhook of TXN0 arrives before its POST's answer is recorded; TXN1 has none.
        yield* Queue.offer(ctx.wakeups, "TXN0")
        yield* TestClock.adjust("10 millis")
        yield* tracker.follow({ idx: 0, amountMinor: 5000, currency: "XAF" }, "TXN0", true)
        yield* tracker.follow({ idx: 1, amountMinor: 5000, currency: "XAF" }, "TXN1", true)
        yield* TestClock.adjust("2 seconds")
        expect(yield* Ref.get(looked)).toEqual(["TXN0"])
        // Without a webhook, the first lookup waits --poll-max (5 minutes here).
        yield* TestClock.adjust("5 minutes")
        expect(yield* Ref.get(looked)).toEqual(["TXN0", "TXN1"])
      }).pipe(Effect.provide(runParts({ services, accountId: ACCOUNT, batchId: BATCH, settings: settings({ webhooks: true, pollMaxMs: 300_000 }), fence }, client)))
    })
  )
})

const ANSWERS: Record<string, StatusRecord> = {
  TXN0: completed("TXN0", { fee: 50 }),
  TXN1: completed("TXN1", { fee: 1e300 }),
  TXN2: completed("TXN2", { fee: -50 }),
  TXN3: completed("TXN9", { amount: 5_000_000 })
}

describe("Tracker: answers checked against the row", () => {
  it.scoped("an absurd fee, a negative fee, another reference: alarms, rows left in flight, looked up once; a sane answer completes", () =>
    Effect.gen(function* () {
      const { services, store } = yield* scopedServices
      yield* store.createBatch(newBatch("b1"), rowInputs(4))
      const batch = store.batch(ACCOUNT, BATCH)
      const fence = Option.getOrThrow(yield* batch.acquireLease("runner", "1 hour"))
      yield* batch.claimRows({ limit: 4, fence })
      const looked = yield* Ref.make<ReadonlyArray<string>>([])
      const client = fakeClient({ status: (reference) => Effect.as(Ref.update(looked, (l) => [...l, reference]), ANSWERS[reference]) })
      yield* Effect.gen(function* () {
        const ctx = yield* RunContext
        const tracker = yield* Tracker
        const writer = yield* TransitionWriter
        for (const idx of [0, 1, 2, 3]) {
          yield* writer.record({ idx, from: ["submitting"], to: "pending", reference: Reference.make(`TXN${idx}`), source: "response" })
        }
        yield* drive(writer.flush, "10 millis")
        yield* Effect.forkScoped(tracker.run)
        for (const idx of [0, 1, 2, 3]) yield* tracker.follow({ idx, amountMinor: 5000, currency: "XAF" }, `TXN${idx}`, false)
        yield* TestClock.adjust("1 second")
        yield* drive(writer.flush, "10 millis")
        // Looked up again after the poll interval, were they still followed: they are not.
        yield* TestClock.adjust("1 minute")
        expect([...(yield* Ref.get(looked))].sort()).toEqual(["TXN0", "TXN1", "TXN2", "TXN3"])
        expect(yield* tracker.tracked).toBe(0)
        const alarms = yield* Ref.get(ctx.alarms)
        expect([...alarms.keys()].sort()).toEqual([1, 2, 3])
        expect(alarms.get(1)?.reason).toContain("fee 1e+300 XAF is beyond any payout")
        expect(alarms.get(2)?.reason).toContain("fee -50 XAF is negative")
        expect(alarms.get(3)?.reason).toContain(`the record of another reference "TXN9" for TXN3`)
        const rows = yield* Effect.forEach([0, 1, 2, 3], (idx) => Effect.map(batch.getRow(idx), Option.getOrThrow))
        expect(rows.map((r) => r.state)).toEqual(["completed", "pending", "pending", "pending"])
        expect(rows.map((r) => r.feeMinor)).toEqual([50, null, null, null])
        expect(rows[1].alarm).toContain("anomaly: the service answered fee 1e+300")
        expect(rows[3].candidates).toEqual(["TXN3"])
      }).pipe(Effect.provide(runParts({ services, accountId: ACCOUNT, batchId: BATCH, settings: settings(), fence }, client)))
    })
  )
})
