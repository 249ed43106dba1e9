/**
 * The tracker (src/run/Tracker.ts) with webhooks leading: a payout's first lookup waits --poll-max,
 * since its webhook wakes it sooner. A webhook may come before the POST's answer is recorded (they
 * race): it must not be lost, or that payout waits the whole --poll-max.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Queue, Ref, TestClock } from "effect"
import { StatusRecord } from "../../src/api/Schemas.ts"
import { BatchId, Reference } from "../../src/domain/Ids.ts"
import { RunContext } from "../../src/run/RunContext.ts"
import { Tracker } from "../../src/run/Tracker.ts"
import { ACCOUNT, newBatch, rowInputs, scopedStore } from "../store/fixtures.ts"
import { fakeClient, runParts } from "./parts.ts"
import { settings } from "./support.ts"

const BATCH = BatchId.make("b1")

const completed = (reference: string) =>
  new StatusRecord({
    reference: Reference.make(reference),
    amount: 5000,
    currency: "XAF",
    type: "payout",
    status: "completed",
    fee: 0,
    created_at: "2025-03-10T10:00:00Z",
    updated_at: "2025-03-10T10:00:01Z"
  })

describe("Tracker", () => {
  it.scoped("a webhook that came before its payout was followed wakes it at once, not after --poll-max", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStore
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
      }).pipe(Effect.provide(runParts({ store, accountId: ACCOUNT, batchId: BATCH, settings: settings({ webhooks: true, pollMaxMs: 300_000 }), fence }, client)))
    })
  )
})
