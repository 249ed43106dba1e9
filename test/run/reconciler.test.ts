/**
 * The reconciler's branches (DESIGN 7, src/run/ResendRules.ts): the run's own per-run layer with a
 * fake PaymentClient whose listing the test writes, a real SQLite store in a temp file, and the
 * TestClock. Row 0's POST ended without an answer; rows 1-3 were answered right after it and are the
 * witnesses a resend needs (rule 2).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Ref, TestClock } from "effect"
import { FENCED, type TransactionFilters } from "../../src/api/ClientApi.ts"
import { NotSent } from "../../src/api/Errors.ts"
import { Pagination, type PayoutRequest, PayoutResponse, WalletTransaction } from "../../src/api/Schemas.ts"
import { BatchId, Reference } from "../../src/domain/Ids.ts"
import { toWire } from "../../src/domain/Money.ts"
import { withToken } from "../../src/domain/Token.ts"
import { type Notice, Notices } from "../../src/run/Notices.ts"
import { wordsOf } from "../../src/cli/NoticeText.ts"
import { DEFAULT_LOCALE, formatFor } from "../../src/output/Format.ts"
import { Reconciler } from "../../src/run/Reconciler.ts"
import { RunContext } from "../../src/run/RunContext.ts"
import { Tracker } from "../../src/run/Tracker.ts"
import { TransitionWriter } from "../../src/run/TransitionWriter.ts"
import type { Row } from "../../src/store/Model.ts"
import { StateStore, type StateStoreShape } from "../kit/Store.ts"
import { ACCOUNT, newBatch, rowInputs } from "../store/fixtures.ts"
import { drive, fakeClient, runParts, scopedServices } from "./parts.ts"
import { settings } from "./support.ts"

const T0 = Date.parse("2025-03-10T10:00:00Z")
const BATCH = BatchId.make("b1")
const WITNESSES = [1, 2, 3]

/** A listed payout of `row` as the service shows it: its [token] description, amount and currency, unless told otherwise. */
const listed = (row: Row, reference: string, over: { readonly status?: string; readonly description?: string } = {}) =>
  new WalletTransaction({
    id: reference,
    reference: Reference.make(reference),
    type: "payout",
    amount: toWire(row.amountMinor ?? 0, row.currency),
    fee: 0,
    net_amount: toWire(row.amountMinor ?? 0, row.currency),
    currency: row.currency,
    status: over.status ?? "completed",
    description: over.description ?? withToken(row.token, row.description),
    created_at: new Date(T0 + 1_000).toISOString()
  })

/** The service: a complete, faithful listing of `payouts` by day, its clock agreeing with ours, and a POST that answers pending. */
const service = (payouts: Array<WalletTransaction>, sent: Array<PayoutRequest>) =>
  fakeClient({
    serverSkew: Effect.succeed(Option.some(0)),
    transactions: (filters: TransactionFilters = {}) =>
      Effect.sync(() => {
        const inDays = payouts.filter((t) => t.created_at.slice(0, 10) >= (filters.from_date ?? "") && t.created_at.slice(0, 10) <= (filters.to_date ?? "9"))
        const page = filters.page ?? 1
        const limit = filters.limit ?? 100
        const transactions = inDays.slice((page - 1) * limit, page * limit)
        const pages = Math.max(1, Math.ceil(inDays.length / limit))
        return { transactions, pagination: new Pagination({ total: inDays.length, count: transactions.length, per_page: limit, current_page: page, total_pages: pages }) }
      }),
    payout: (body, mayStillSend) =>
      Effect.gen(function* () {
        if (mayStillSend !== undefined && !(yield* mayStillSend)) return yield* new NotSent({ reason: FENCED })
        sent.push(body)
        return new PayoutResponse({ reference: Reference.make(`RESENT${sent.length}`), status: "pending" })
      })
  })

interface World {
  readonly store: StateStoreShape
  readonly rows: ReadonlyArray<Row>
  /** The service's listing: a test may add to it between rounds. */
  readonly listing: Array<WalletTransaction>
  /** The payout POSTs that reached the service. */
  readonly sent: ReadonlyArray<PayoutRequest>
  /** The run's messages to a person. */
  readonly notices: ReadonlyArray<string>
}

/**
 * A batch of four rows claimed at T0 by this run: row 0 went unknown at T0 (its POST ended without an
 * answer), rows 1-3 were answered a second later. `test` then runs inside the run's services, with
 * `listing` (built from the rows) as the service's listing.
 */
const scene = <A, E>(
  listing: (rows: ReadonlyArray<Row>) => Array<WalletTransaction>,
  test: (world: World) => Effect.Effect<A, E, RunContext | Reconciler | Tracker | TransitionWriter | StateStore>
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const { services, store } = yield* scopedServices
    yield* store.createBatch(newBatch("b1"), rowInputs(4))
    const batch = store.batch(ACCOUNT, BATCH)
    const fence = Option.getOrThrow(yield* batch.acquireLease("runner", "1 hour"))
    yield* batch.claimRows({ limit: 4, excludeOperators: [], fence })
    yield* batch.recordTransitions([{ idx: 0, from: ["submitting"], to: "unknown", error: "the connection was reset after sending", source: "response" }], fence)
    yield* TestClock.adjust("1 second")
    yield* batch.recordTransitions(WITNESSES.map((idx) => ({ idx, from: ["submitting"], to: "completed", reference: Reference.make(`TXN${idx}`), source: "response" })), fence)
    const rows = yield* Effect.forEach([0, 1, 2, 3], (idx) => Effect.map(batch.getRow(idx), Option.getOrThrow))
    const payouts = listing(rows)
    const sent: Array<PayoutRequest> = []
    const notices: Array<string> = []
    // The run's notices worded as the command line words them.
    const sink = {
      emit: (n: Notice) =>
        Effect.sync(() => {
          const words = wordsOf(n, formatFor(DEFAULT_LOCALE))
          if (words !== undefined) notices.push(words)
        })
    }
    return yield* test({ store, rows, listing: payouts, sent, notices }).pipe(
      Effect.provide(runParts({ services, accountId: ACCOUNT, batchId: BATCH, settings: settings(), fence }, service(payouts, sent))),
      Effect.provideService(StateStore, store),
      Effect.provideService(Notices, sink)
    )
  })

/** The witnesses listed faithfully: the listing can prove row 0 absent. */
const faithfulWitnesses = (rows: ReadonlyArray<Row>) => WITNESSES.map((idx) => listed(rows[idx], `TXN${idx}`))

/** One reconcile round, the TestClock moved in small steps while it waits (the writer's grouping). */
const round = Effect.flatMap(Reconciler, (reconciler) => drive(reconciler.round(), "10 millis"))

const row0 = Effect.gen(function* () {
  yield* Effect.flatMap(TransitionWriter, (writer) => writer.flush)
  const ctx = yield* RunContext
  const store = yield* StateStore
  return Option.getOrThrow(yield* store.batch(ctx.accountId, ctx.batchId).getRow(0))
})

/** Row 0 not found past the grace, in two complete syncs half a grace apart: resent once (rules 1-7). */
const resendRow0 = Effect.gen(function* () {
  const first = yield* round
  yield* TestClock.adjust("10 seconds")
  const second = yield* round
  return { first, second }
})

describe("Reconciler, one branch at a time", () => {
  it.scoped("a payout listed with the row's token, amount and currency is adopted, and the tracker follows it", () =>
    scene(
      (rows) => [...faithfulWitnesses(rows), listed(rows[0], "TXN0", { status: "pending" })],
      ({ sent }) =>
        Effect.gen(function* () {
          const r = yield* round
          expect(r).toEqual({ waiting: 0, adopted: 1, resent: 0, alarms: 0 })
          const row = yield* row0
          expect([row.state, row.reference, row.resends]).toEqual(["pending", "TXN0", 0])
          expect(yield* Effect.flatMap(Tracker, (t) => t.tracked)).toBe(1)
          expect(sent).toHaveLength(0)
        })
    )
  )

  it.scoped("not found within the grace: the row waits and says why; nothing is sent", () =>
    scene(faithfulWitnesses, ({ notices, sent }) =>
      Effect.gen(function* () {
        const r = yield* round
        expect(r).toEqual({ waiting: 1, adopted: 0, resent: 0, alarms: 0 })
        expect((yield* row0).state).toBe("unknown")
        expect(notices.some((n) => n.includes("line 2: outcome unknown, waiting: within the reconcile grace"))).toBe(true)
        expect(sent).toHaveLength(0)
      })
    )
  )

  it.scoped("not found past the grace in two complete syncs: resent once with the same token, and followed", () =>
    scene(faithfulWitnesses, ({ notices, rows, sent }) =>
      Effect.gen(function* () {
        const { first, second } = yield* resendRow0
        expect(first.resent).toBe(0)
        expect(second).toEqual({ waiting: 0, adopted: 0, resent: 1, alarms: 0 })
        expect(sent).toHaveLength(1)
        expect(sent[0].description).toBe(withToken(rows[0].token, rows[0].description))
        const row = yield* row0
        expect([row.state, row.reference, row.resends]).toEqual(["pending", "RESENT1", 1])
        expect(yield* Effect.flatMap(Tracker, (t) => t.tracked)).toBe(1)
        expect(notices.some((n) => n.includes(`line 2: resending once with the same token [${rows[0].token}]`))).toBe(true)
      })
    )
  )

  it.scoped("a listing that shows our payouts altered cannot prove absence: an account alarm, and no resend even past the grace", () =>
    scene(
      (rows) => WITNESSES.map((idx) => listed(rows[idx], `TXN${idx}`, { description: `Payout id-${idx}` })),
      ({ notices, sent, store }) =>
        Effect.gen(function* () {
          const { first, second } = yield* resendRow0
          expect([first.waiting, first.resent, second.waiting, second.resent]).toEqual([1, 0, 1, 0])
          const ctx = yield* RunContext
          expect(yield* Ref.get(ctx.accountAlarm)).toContain("cannot prove a payout absent")
          expect(Option.map(yield* store.account(ACCOUNT).accountAlarm(), (a) => a.reason)).toEqual(Option.some(yield* Ref.get(ctx.accountAlarm)))
          expect((yield* row0).state).toBe("unknown")
          expect(notices.filter((n) => n.startsWith("ACCOUNT ALARM"))).toHaveLength(1)
          expect(sent).toHaveLength(0)
        })
    )
  )

  it.scoped("a second payout carrying a resent row's token is a duplicate: the row goes under alarm", () =>
    scene(faithfulWitnesses, ({ listing, rows, sent }) =>
      Effect.gen(function* () {
        yield* resendRow0
        expect(sent).toHaveLength(1)
        // The first POST did reach the service after all: its payout is listed late, beside the resend's.
        listing.push(listed(rows[0], "TXN0-LATE"), listed(rows[0], "RESENT1", { status: "pending" }))
        const r = yield* round
        expect(r.alarms).toBe(1)
        const ctx = yield* RunContext
        const alarm = (yield* Ref.get(ctx.alarms)).get(0)
        expect(alarm?.reason).toBe("resent once, and now 2 payouts carry its token (duplicate)")
        expect([...(alarm?.references ?? [])].sort()).toEqual(["RESENT1", "TXN0-LATE"])
        expect((yield* row0).alarm).toBe(alarm?.reason)
        expect(sent).toHaveLength(1)
      })
    )
  )
})
