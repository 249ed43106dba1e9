import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseFaults } from "../../src/sandbox/FaultGrammar.ts"
import { advance, assertInvariants, payout, payoutBody, sandbox, type Api } from "../kit/Sandbox.ts"

const payouts = (api: Api) => Effect.map(api.get("/__sandbox/payouts"), (r) => r.json.payouts as Array<any>)
const counters = (api: Api) => Effect.map(api.get("/__sandbox/faults"), (r) => r.json.counters as Record<string, number>)
const rawPayout = (api: Api, signal?: AbortSignal) =>
  Effect.either(
    api.raw("/v1/payments/payout/mobile-money", {
      method: "POST",
      headers: { ...api.headers, "Content-Type": "application/json" },
      body: JSON.stringify(payoutBody()),
      signal
    })
  )

describe("parseFaults", () => {
  it("parses the DESIGN example", () => {
    const parsed = parseFaults("payout.error_after=0.05,payout.reset_after=0.02,*.latency=5ms-50ms,rate=50,seed=7")
    expect(parsed).toEqual(
      Either.right({
        seed: 7,
        rate: 50,
        endpoints: { payout: { error_after: 0.05, reset_after: 0.02 }, "*": { latency: { min: 5, max: 50 } } }
      })
    )
  })

  it("parses every kind, durations and the empty string", () => {
    const parsed = Either.getOrThrow(
      parseFaults(" status.hold_after=1 , transactions.list_lag=2m,payin.error_before=0.1,webhook_dup=0.5,payout.webhook_delay=1s-2s,*.webhook_reorder=0.2,wallet.latency=1.5s")
    )
    expect(parsed.endpoints.status).toEqual({ hold_after: 1 })
    expect(parsed.endpoints.transactions).toEqual({ list_lag: 120_000 })
    expect(parsed.endpoints["*"]).toEqual({ webhook_dup: 0.5, webhook_reorder: 0.2 })
    expect(parsed.endpoints.payout).toEqual({ webhook_delay: { min: 1000, max: 2000 } })
    expect(parsed.endpoints.wallet).toEqual({ latency: { min: 1500, max: 1500 } })
    expect(parseFaults("")).toEqual(Either.right({ seed: undefined, rate: undefined, endpoints: {} }))
  })

  it("refuses mistakes with clear messages", () => {
    const message = (text: string) => Either.getLeft(parseFaults(text)).pipe((o) => (o._tag === "Some" ? o.value : ""))
    expect(message("refund.error_after=0.1")).toMatch(/unknown endpoint "refund"/)
    expect(message("payout.explode=1")).toMatch(/unknown fault kind "explode"/)
    expect(message("payout.error_after=1.5")).toMatch(/probability between 0 and 1/)
    expect(message("payout.latency=fast")).toMatch(/not a duration/)
    expect(message("payout.latency=50ms-10ms")).toMatch(/ends before it starts/)
    expect(message("rate=0")).toMatch(/positive rate/)
    expect(message("payout.rate=5")).toMatch(/all endpoints/)
    expect(message("seed=x")).toMatch(/seed/)
    expect(message("payout.error_after")).toMatch(/ENDPOINT\.KIND=VALUE/)
  })
})

describe("fault injection over HTTP", () => {
  it.scopedLive("error_before: 500, nothing committed", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payout.error_before=1" })
      const r = yield* payout(api)
      expect(r.status).toBe(500)
      expect(r.json.success).toBe(false)
      expect(yield* payouts(api)).toEqual([])
      expect((yield* api.get("/v1/wallet")).status).toBe(200)
      expect((yield* counters(api))["payout.error_before"]).toBe(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("error_after: the payout exists but the answer is a 500 with envelope A", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payout.error_after=1", payoutDelaySeconds: 60 })
      const r = yield* payout(api)
      expect(r.status).toBe(500)
      expect(r.json).toMatchObject({ success: false, message: expect.any(String) })
      expect(yield* payouts(api)).toHaveLength(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("reset_after: the payout exists and the connection is dropped without an answer", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payout.reset_after=1", payoutDelaySeconds: 60 })
      const r = yield* rawPayout(api)
      expect(Either.isLeft(r)).toBe(true)
      expect(yield* payouts(api)).toHaveLength(1)
      expect((yield* counters(api))["payout.reset_after"]).toBe(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("hold_after: the payout exists and no answer comes until the client gives up", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payout.hold_after=1", payoutDelaySeconds: 60 })
      const started = Date.now()
      const r = yield* rawPayout(api, AbortSignal.timeout(400))
      expect(Either.isLeft(r)).toBe(true)
      expect(Date.now() - started).toBeGreaterThanOrEqual(380)
      expect(yield* payouts(api)).toHaveLength(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("latency delays the endpoint it names; * applies everywhere; admin is never faulted", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "wallet.latency=150ms-200ms,*.error_before=1" })
      const started = Date.now()
      const r = yield* api.get("/v1/wallet")
      expect(Date.now() - started).toBeGreaterThanOrEqual(145)
      expect(r.status).toBe(500)
      expect((yield* api.get("/v1/payment/status/TXN1")).status).toBe(500)
      expect((yield* api.get("/__sandbox/invariants")).status).toBe(200)
    })
  )

  it.scopedLive("rate: 429 envelope A with Retry-After once the rate is exceeded", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "rate=3" })
      const replies = yield* Effect.forEach(Array.from({ length: 8 }), () => api.get("/v1/wallet"))
      const limited = replies.filter((r) => r.status === 429)
      expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(3)
      expect(limited.length).toBeGreaterThanOrEqual(4)
      expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect(limited[0].json).toMatchObject({ success: false, errors: { rate: [expect.any(String)] } })
      expect((yield* counters(api)).rate_limited).toBe(limited.length)
      yield* Effect.sleep(1_100)
      expect((yield* api.get("/v1/wallet")).status).toBe(200)
    })
  )

  it.scopedLive("list_lag hides transactions younger than the lag from listings only", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "transactions.list_lag=10m", payoutDelaySeconds: 3600 })
      const ref = (yield* payout(api)).json.reference
      const listed = () => Effect.map(api.get("/v1/wallet/transactions?type=payout"), (r) => r.json.data.transactions.map((t: any) => t.reference))
      expect(yield* listed()).toEqual([])
      expect((yield* api.get(`/v1/payment/status/${ref}`)).status).toBe(200)
      yield* advance(api, 601)
      expect(yield* listed()).toEqual([ref])
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("PUT /__sandbox/faults replaces the settings; a seed makes runs reproducible", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payoutDelaySeconds: 3600 })
      const bad = yield* api.send("PUT", "/__sandbox/faults", { faults: "payout.boom=1" })
      expect(bad.status).toBe(422)
      expect(bad.json.errors.faults[0]).toMatch(/unknown fault kind/)
      const run = Effect.gen(function* () {
        const put = yield* api.send("PUT", "/__sandbox/faults", { faults: "payout.error_after=0.5,seed=42" })
        expect(put.json.settings).toMatchObject({ seed: 42, endpoints: { payout: { error_after: 0.5 } } })
        return yield* Effect.forEach(Array.from({ length: 12 }), () => Effect.map(payout(api, { amount: 100 }), (r) => r.status))
      })
      const first = yield* run
      const second = yield* run
      expect(first).toEqual(second)
      expect(new Set(first)).toEqual(new Set([200, 500]))
      const got = (yield* api.get("/__sandbox/faults")).json
      expect(got.counters["payout.error_after"]).toBe(first.filter((s) => s === 500).length)
      expect(got.counters.requests).toBe(12)
      yield* api.send("PUT", "/__sandbox/faults", { faults: "" })
      expect((yield* payout(api, { amount: 100 })).status).toBe(200)
      expect(yield* payouts(api)).toHaveLength(25)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("an invalid --faults string refuses to start", () =>
    Effect.gen(function* () {
      const { launchSandbox } = yield* Effect.promise(() => import("../../src/sandbox/Sandbox.ts"))
      const error = yield* Effect.flip(launchSandbox({ faults: "nope.latency=1ms" }))
      expect(error._tag).toBe("SandboxStartError")
      expect(error.message).toMatch(/unknown endpoint "nope"/)
    })
  )
})
