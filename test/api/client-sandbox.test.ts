/** The real client against the real sandbox, over a real port. */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { PaymentClient } from "../../src/api/Client.ts"
import type { PaymentClientSettingsInput } from "../../src/api/ClientConfig.ts"
import { RequestGate } from "../../src/api/RequestGate.ts"
import type { PayoutRequest } from "../../src/api/Schemas.ts"
import { type SandboxInfo, startSandbox } from "../../src/sandbox/Sandbox.ts"
import { clientLayer } from "../kit/Client.ts"
import { payoutBody } from "../kit/Sandbox.ts"

const admin = (info: SandboxInfo, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${info.origin}${path}`, {
      method,
      headers: {
        "X-API-Key": info.key,
        "X-API-Secret": info.secret,
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" })
      },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, json: await response.json() }
  })

const request = (description: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest =>
  payoutBody({ description, payout_details: { row: description.slice(1, 7) }, ...overrides }) as PayoutRequest

const withSandbox = <A, E>(
  use: (info: SandboxInfo, client: PaymentClient) => Effect.Effect<A, E, RequestGate>,
  input: Partial<PaymentClientSettingsInput> = {}
) =>
  Effect.gen(function*() {
    const info = yield* Effect.orDie(startSandbox({ fund: { XAF: 1_000_000, XOF: 500_000 }, key: "k-sbx-1234", secret: "s-sbx-5678" }))
    return yield* Effect.flatMap(PaymentClient, (client) => use(info, client)).pipe(Effect.provide(clientLayer(info, input)))
  })

describe("PaymentClient against the sandbox", () => {
  it.scopedLive("wallets, summary, payout, status, and the typed refusals", () =>
    withSandbox((info, client) =>
      Effect.gen(function*() {
        const wallets = yield* client.wallets()
        const xaf = wallets.find((w) => w.currency === "XAF")
        expect(xaf).toMatchObject({ balance: 1_000_000, available_balance: 1_000_000 })
        const summary = yield* client.summary()
        expect(summary.total_balance_summary.map((s) => s.currency)).toEqual(expect.arrayContaining(["XAF", "XOF"]))

        const accepted = yield* client.payout(request("[tok001] settlement", { amount: 10_000 }))
        expect(accepted).toMatchObject({ status: "pending", currency: "XAF", amount: 10_000 })
        const record = yield* client.status(accepted.reference)
        expect(record).toMatchObject({ reference: accepted.reference, type: "payout", amount: 10_000 })
        expect(record.payment_details).toEqual({ row: "tok001" })
        expect((yield* client.wallets()).find((w) => w.currency === "XAF")?.reserved_balance).toBe(10_000 + (accepted.fee ?? 0))

        expect(yield* Effect.flip(client.status("TXNDOESNOTEXIST"))).toMatchObject({ _tag: "NotFound", reference: "TXNDOESNOTEXIST" })
        expect((yield* Effect.flip(client.payout(request("[tok002] too much", { amount: 50_000_000 }))))._tag).toBe("InsufficientBalance")
        const badPhone = yield* Effect.flip(client.payout(request("[tok003] bad phone", { phoneNumber: "12" })))
        expect(badPhone).toMatchObject({ _tag: "ValidationError", errors: { phoneNumber: expect.any(Array) } })
        expect((yield* Effect.flip(client.transactions({ from_date: "01/03/2025" })))._tag).toBe("ValidationError")
        const payouts = (yield* admin(info, "GET", "/__sandbox/payouts")).json.payouts as Array<{ description: string }>
        expect(payouts.map((p) => p.description)).toEqual(["[tok001] settlement"])
      })))

  it.scopedLive("bad credentials are an AuthError", () =>
    withSandbox(
      (_, client) =>
        Effect.gen(function*() {
          expect((yield* Effect.flip(client.wallets()))._tag).toBe("AuthError")
          expect((yield* Effect.flip(client.payout(request("[tok004] x"))))._tag).toBe("AuthError")
        }),
      { apiSecret: "wrong-secret" }
    ))

  it.scopedLive("transactionStream reads every page", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const references: Array<string> = []
        for (let i = 0; i < 7; i++) {
          references.push((yield* client.payout(request(`[tok1${i}] page test`, { amount: 1000 + i }))).reference)
        }
        const first = yield* client.transactions({ type: "payout", limit: 3 })
        expect(first.pagination).toMatchObject({ total: 7, per_page: 3, current_page: 1, total_pages: 3 })
        const all = yield* Stream.runCollect(client.transactionStream({ type: "payout", limit: 3 }))
        expect(Chunk.toReadonlyArray(all).map((t) => t.reference).sort()).toEqual([...references].sort())
        const everything = yield* Stream.runCollect(client.transactionStream({ limit: 2 }))
        expect(Chunk.size(everything)).toBeGreaterThanOrEqual(9)
      })))

  for (const kind of ["error_after", "reset_after", "hold_after"] as const) {
    it.scopedLive(`${kind} on a payout: OutcomeUnknown, and the payout exists`, () =>
      withSandbox(
        (info, client) =>
          Effect.gen(function*() {
            expect((yield* admin(info, "PUT", "/__sandbox/faults", { faults: `payout.${kind}=1,seed=1` })).status).toBe(200)
            const error = yield* Effect.flip(client.payout(request(`[${kind}] ambiguous`)))
            expect(error._tag).toBe("OutcomeUnknown")
            yield* admin(info, "PUT", "/__sandbox/faults", { faults: "" })
            const payouts = (yield* admin(info, "GET", "/__sandbox/payouts")).json.payouts as Array<{ description: string }>
            expect(payouts.map((p) => p.description)).toEqual([`[${kind}] ambiguous`])
            const listed = yield* Stream.runCollect(client.transactionStream({ type: "payout" }))
            expect(Chunk.toReadonlyArray(listed).map((t) => t.description)).toContain(`[${kind}] ambiguous`)
          }),
        { requestTimeout: "500 millis" }
      ))
  }

  it.scopedLive("GETs ride out the sandbox's rate limit and the shared gate slows down", () =>
    withSandbox(
      (info, client) =>
        Effect.gen(function*() {
          yield* admin(info, "PUT", "/__sandbox/faults", { faults: "rate=10" })
          const results = yield* Effect.forEach(Array.from({ length: 25 }), () => client.wallets(), { concurrency: 8 })
          expect(results).toHaveLength(25)
          const gate = yield* RequestGate
          expect(yield* gate.currentRate).toBeLessThan(Number.POSITIVE_INFINITY)
          const counters = (yield* admin(info, "GET", "/__sandbox/faults")).json.counters
          expect(counters.rate_limited).toBeGreaterThan(0)
        }),
      { getRetry: { base: "50 millis", times: 10, maxElapsed: "20 seconds" } }
    ))

  it.scopedLive("a payout refused for rate is RateLimited, never a validation error, and is not resent", () =>
    withSandbox((info, client) =>
      Effect.gen(function*() {
        yield* admin(info, "PUT", "/__sandbox/faults", { faults: "rate=1" })
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 4 }, (_, i) => request(`[rate${i}] burst`)),
          (body) => Effect.either(client.payout(body)),
          { concurrency: "unbounded" }
        )
        const tags = outcomes.map((o) => (o._tag === "Right" ? "Success" : o.left._tag))
        expect(tags).toContain("RateLimited")
        expect(tags.every((t) => t === "Success" || t === "RateLimited")).toBe(true)
        yield* admin(info, "PUT", "/__sandbox/faults", { faults: "" })
        const payouts = (yield* admin(info, "GET", "/__sandbox/payouts")).json.payouts as Array<unknown>
        expect(payouts).toHaveLength(tags.filter((t) => t === "Success").length)
      })))
})
