/**
 * The submitter's branches, one answer of the service each: the run's own per-run layer with a fake
 * PaymentClient, a real SQLite store in a temp file, and the TestClock (retries and the writer's
 * grouping wait are clock sleeps).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Ref } from "effect"
import { FENCED } from "../../src/api/ClientApi.ts"
import { type ClientError, NotSent, OutcomeUnknown, ValidationError } from "../../src/api/Errors.ts"
import { PayoutResponse, type PayoutRequest } from "../../src/api/Schemas.ts"
import { BatchId, Reference } from "../../src/domain/Ids.ts"
import { RunContext } from "../../src/run/RunContext.ts"
import { Submitter } from "../../src/run/Submitter.ts"
import { Tracker } from "../../src/run/Tracker.ts"
import { TransitionWriter } from "../../src/run/TransitionWriter.ts"
import { ACCOUNT, newBatch, rowInputs } from "../store/fixtures.ts"
import { drive, fakeClient, runParts, scopedServices } from "./parts.ts"
import { settings } from "./support.ts"

type Answer = (body: PayoutRequest) => Effect.Effect<PayoutResponse, ClientError>

/** A client whose POST answers with `answer`, asking `mayStillSend` first as the real one does; every other call dies. */
const payingClient = (answer: Answer, sent: Array<PayoutRequest>) =>
  fakeClient({
    payout: (body, mayStillSend) =>
      Effect.gen(function* () {
        if (mayStillSend !== undefined && !(yield* mayStillSend)) return yield* new NotSent({ reason: FENCED })
        sent.push(body)
        return yield* answer(body)
      })
  })

/** Submits a batch of `rows` rows with the fake client answering `answer`; the rows and the run's state after. */
const submitWith = (answer: Answer, rows = 2) =>
  Effect.gen(function* () {
    const { services, store } = yield* scopedServices
    const sent: Array<PayoutRequest> = []
    const batchId = BatchId.make("b1")
    yield* store.createBatch(newBatch("b1"), rowInputs(rows))
    const fence = Option.getOrThrow(yield* store.batch(ACCOUNT, batchId).acquireLease("runner", "1 hour"))
    return yield* Effect.gen(function* () {
      const ctx = yield* RunContext
      const submitter = yield* Submitter
      const writer = yield* TransitionWriter
      const tracker = yield* Tracker
      yield* drive(Effect.zipRight(submitter.submitAll, writer.flush))
      const after = yield* Effect.forEach(Array.from({ length: rows }, (_, idx) => idx), (idx) => Effect.map(store.batch(ACCOUNT, batchId).getRow(idx), Option.getOrThrow))
      return { rows: after, sent, stop: yield* Ref.get(ctx.stop), tracked: yield* tracker.tracked }
    }).pipe(Effect.provide(runParts({ services, accountId: ACCOUNT, batchId, settings: settings({ concurrency: 1 }), fence }, payingClient(answer, sent))))
  })

describe("Submitter, one service answer at a time", () => {
  it.scoped("an accepted payout records its reference and fee and is followed by the tracker", () =>
    Effect.gen(function* () {
      let n = 0
      const run = yield* submitWith(() => Effect.succeed(new PayoutResponse({ reference: Reference.make(`TXN${++n}`), status: "pending", fee: 50 })))
      expect(run.rows.map((r) => [r.state, r.reference, r.feeMinor])).toEqual([
        ["pending", "TXN1", 50],
        ["pending", "TXN2", 50]
      ])
      expect(run.sent).toHaveLength(2)
      expect(run.tracked).toBe(2)
      expect(run.stop).toBeUndefined()
    })
  )

  it.scoped("an outcome unknown makes the row unknown: never sent again here, not followed by the tracker", () =>
    Effect.gen(function* () {
      const run = yield* submitWith(() => Effect.fail(new OutcomeUnknown({ reason: "the connection was reset after sending" })), 1)
      expect(run.rows.map((r) => [r.state, r.reference])).toEqual([["unknown", null]])
      expect(run.rows[0].error).toContain("connection was reset")
      expect(run.sent).toHaveLength(1)
      expect(run.tracked).toBe(0)
      expect(run.stop).toBeUndefined()
    })
  )

  it.scoped("a validation error fails the row with the service's field messages; the run goes on", () =>
    Effect.gen(function* () {
      const run = yield* submitWith(() => Effect.fail(new ValidationError({ message: "invalid", errors: { phoneNumber: ["is not a valid number"] } })))
      expect(run.rows.map((r) => [r.state, r.error])).toEqual([
        ["failed", "refused: phoneNumber: is not a valid number"],
        ["failed", "refused: phoneNumber: is not a valid number"]
      ])
      expect(run.sent).toHaveLength(2)
      expect(run.stop).toBeUndefined()
    })
  )

  it.scoped("a request that never left is tried again; still not sent, the row goes back to validated and the run stops", () =>
    Effect.gen(function* () {
      const run = yield* submitWith(() => Effect.fail(new NotSent({ reason: "connection refused" })), 1)
      expect(run.rows.map((r) => [r.state, r.reference])).toEqual([["validated", null]])
      expect(run.sent.length).toBeGreaterThan(1)
      expect(new Set(run.sent.map((b) => b.description)).size).toBe(1)
      expect(run.stop?._tag).toBe("Unreachable")
    })
  )

  it.scoped("not sent once, then accepted: the same request is sent again and the row is pending", () =>
    Effect.gen(function* () {
      let calls = 0
      const run = yield* submitWith(
        () => (++calls === 1 ? Effect.fail(new NotSent({ reason: "connection refused" })) : Effect.succeed(new PayoutResponse({ reference: Reference.make("TXN1"), status: "pending" }))),
        1
      )
      expect(run.rows.map((r) => [r.state, r.reference])).toEqual([["pending", "TXN1"]])
      expect(run.sent).toHaveLength(2)
      expect(run.sent[0]).toEqual(run.sent[1])
      expect(run.stop).toBeUndefined()
    })
  )
})
