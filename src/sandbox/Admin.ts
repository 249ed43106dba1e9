/** Admin endpoints under /__sandbox (never under /v1): test data, funding, clock, faults, invariants. */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Random, Ref } from "effect"
import { openApiJson } from "../api/OpenApi.ts"
import { isKnownCurrency, minorDigits, toWire } from "../domain/Money.ts"
import { iso } from "./Clock.ts"
import { SandboxContext } from "./Context.ts"
import { countersOf, type FaultWorld, makeFaultWorld } from "./FaultWorld.ts"
import { CLOCK_MOVED } from "./Persistence.ts"
import { parseFaults } from "./FaultGrammar.ts"
import { TEST_DATA_PATH } from "./Gate.ts"
import { invariantsView } from "./Invariants.ts"
import { envelopeA, invalid, jsonBody, type JsonObject, ok } from "./Http.ts"
import { refund } from "./Payouts.ts"
import { fund, settle } from "./Settlement.ts"
import { journalOf, type SandboxState, touch, transactionsOf, txnOf } from "./State.ts"
import { testData } from "./TestNumbers.ts"
import { payoutView, statusRecordView, transactionView, walletView } from "./Views.ts"

const withBody = <R>(handle: (body: JsonObject) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
  Effect.flatMap(jsonBody, Either.match({ onLeft: Effect.succeed, onRight: handle }))

const fundRoute = withBody((body) =>
  Effect.gen(function* () {
    const currency = body.currency
    const amount = body.amount
    if (typeof currency !== "string" || !isKnownCurrency(currency)) return invalid({ currency: ["The currency must be one of XAF, XOF, NGN, GHS, USD, EUR."] })
    const minor = typeof amount === "number" ? Math.round(amount * 10 ** minorDigits(currency)) : NaN
    if (!(minor > 0) || !Number.isSafeInteger(minor) || Math.abs(minor / 10 ** minorDigits(currency) - (amount as number)) > 1e-9) {
      return invalid({ amount: [`The amount must be a positive number with at most ${minorDigits(currency)} decimals.`] })
    }
    const ctx = yield* SandboxContext
    const now = yield* ctx.clock.now
    const { txn, wallet } = yield* Ref.modify(ctx.state, (state) => {
      const [txn, next] = fund(state, currency, minor, now)
      return [{ txn, wallet: next.wallets[currency] }, next]
    })
    return ok({ transaction: transactionView(txn), wallet: walletView(wallet) })
  })
)

const advanceRoute = withBody((body) =>
  Effect.gen(function* () {
    const seconds = body.seconds
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
      return invalid({ seconds: ["The seconds must be a number of at least 0."] })
    }
    const ctx = yield* SandboxContext
    const now = yield* ctx.clock.advance(seconds)
    yield* Ref.update(ctx.state, (state) => touch(state, CLOCK_MOVED))
    yield* ctx.processDue
    return ok({ now: iso(now), time_scale: ctx.clock.timeScale })
  })
)

const faultsView = (world: FaultWorld) => ({ settings: world.settings, seed: world.seed, counters: countersOf(world) })

const putFaultsRoute = withBody((body) =>
  Effect.gen(function* () {
    const text = body.faults
    if (typeof text !== "string") return invalid({ faults: ['Send {"faults": "ENDPOINT.KIND=VALUE,..."} (an empty string clears them).'] })
    const parsed = parseFaults(text)
    if (Either.isLeft(parsed)) return invalid({ faults: [parsed.left] })
    const seed = parsed.right.seed ?? (yield* Random.nextInt)
    const { faults } = yield* SandboxContext
    // Everything starts afresh, the counters too; the bucket keeps its clock.
    const fresh = yield* Ref.updateAndGet(faults, (world) => makeFaultWorld(parsed.right, seed, world.bucket.last))
    return ok(faultsView(fresh))
  })
)

const refundRoute = withBody((body) =>
  Effect.gen(function* () {
    const reference = typeof body.reference === "string" ? body.reference : ""
    const ctx = yield* SandboxContext
    const now = yield* ctx.clock.now
    const [result, status] = yield* Ref.modify(ctx.state, (state) => {
      const [result, next] = refund(state, reference, now)
      return [[result, txnOf(state, reference)?.status] as const, next]
    })
    if (Either.isLeft(result)) {
      if (result.left === "not_found") return envelopeA(404, "Transaction not found", { reference: [`No transaction exists with reference ${reference}`] })
      if (result.left === "insufficient") return invalid({ amount: [`The available balance cannot cover the refund of ${reference}.`] })
      return invalid({ reference: [`Only a completed pay-in or payout can be refunded; ${reference} is ${status}.`] })
    }
    yield* ctx.notify([result.right])
    return ok({ transaction: statusRecordView(result.right) })
  })
)

/** The v1 interface's OpenAPI description, its server the address this request reached. */
const openApiRoute = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  HttpServerResponse.text(openApiJson({ url: `http://${request.headers.host ?? "127.0.0.1"}/v1`, description: "This sandbox." }), {
    contentType: "application/json"
  })
)

/** A route that reads the sandbox's state (a snapshot) and answers from it. */
const fromState = (answer: (state: SandboxState) => HttpServerResponse.HttpServerResponse) =>
  Effect.flatMap(SandboxContext, (ctx) => Effect.map(Ref.get(ctx.state), answer))

export const adminRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/__sandbox/openapi.json", openApiRoute),
  HttpRouter.get(TEST_DATA_PATH, Effect.sync(() => ok(testData()))),
  HttpRouter.post("/__sandbox/fund", fundRoute),
  HttpRouter.post(
    "/__sandbox/settle",
    Effect.flatMap(SandboxContext, (ctx) =>
      Effect.flatMap(ctx.clock.now, (now) =>
        Effect.map(Ref.modify(ctx.state, (state) => settle(state, now)), (settled) =>
          ok({ settled: settled.map(({ currency, amount }) => ({ currency, amount: toWire(amount, currency) })) })
        )
      )
    )
  ),
  HttpRouter.get(
    "/__sandbox/clock",
    Effect.flatMap(SandboxContext, ({ clock }) => Effect.map(clock.now, (now) => ok({ now: iso(now), time_scale: clock.timeScale })))
  ),
  HttpRouter.post("/__sandbox/clock/advance", advanceRoute),
  HttpRouter.get("/__sandbox/faults", Effect.flatMap(SandboxContext, (ctx) => Effect.map(Ref.get(ctx.faults), (world) => ok(faultsView(world))))),
  HttpRouter.put("/__sandbox/faults", putFaultsRoute),
  HttpRouter.post("/__sandbox/refund", refundRoute),
  HttpRouter.get("/__sandbox/payins", fromState((state) => ok({ payins: transactionsOf(state).filter((t) => t.type === "payin").map(payoutView) }))),
  HttpRouter.get("/__sandbox/payouts", fromState((state) => ok({ payouts: transactionsOf(state).filter((t) => t.type === "payout").map(payoutView) }))),
  HttpRouter.get("/__sandbox/journal", fromState((state) => ok(journalView(state)))),
  HttpRouter.get("/__sandbox/invariants", fromState((state) => ok(invariantsView(state))))
)

const journalView = (state: SandboxState) => ({
  entries: journalOf(state).map((e) => ({
    seq: e.seq,
    at: iso(e.at),
    kind: e.kind,
    reference: e.reference,
    currency: e.currency,
    balance: toWire(e.balance, e.currency),
    pending: toWire(e.pending, e.currency),
    reserved: toWire(e.reserved, e.currency)
  }))
})
