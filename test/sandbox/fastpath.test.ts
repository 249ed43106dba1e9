/**
 * The hot routes are answered by a plain handler when no gate fault applies, and by the router and
 * gate otherwise: both must give the same statuses, bodies and counters for the same requests.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Api, assertInvariants, payoutBody, sandbox } from "./support/Harness.ts"

const script = (api: Api) =>
  Effect.gen(function* () {
    const replies = []
    const ok = yield* api.send("POST", "/v1/payments/payout/mobile-money", payoutBody())
    replies.push(ok)
    replies.push(yield* api.send("POST", "/v1/payments/payout/mobile-money", payoutBody({ amount: 10.5, customer: { email: "x" } })))
    replies.push(yield* api.send("POST", "/v1/payments/payout/mobile-money", "{not json"))
    replies.push(yield* api.send("POST", "/v1/payments/payout/mobile-money", payoutBody({ amount: 50_000_000 })))
    replies.push(yield* api.send("POST", "/v1/payments/payout/mobile-money", payoutBody(), { "Content-Type": "text/plain" }))
    replies.push(yield* api.get(`/v1/payment/status/${ok.json.reference}`))
    replies.push(yield* api.get("/v1/payment/status/TXN-NONE"))
    replies.push(yield* api.get("/v1/wallet"))
    replies.push(yield* api.get("/v1/wallet/transactions?limit=1&page=2"))
    replies.push(yield* api.get("/v1/wallet/transactions?type=nope"))
    replies.push(yield* api.get("/v1/wallet", { "X-API-Secret": "wrong" }))
    replies.push(yield* api.get("/v1/wallet", { Accept: "text/html" }))
    const counters = (yield* api.get("/__sandbox/faults")).json.counters
    const instance = String(api.state.instance)
    const normal = (text: string) =>
      text
        .split(instance).join("<i>")
        .split(instance.toUpperCase()).join("<i>")
        .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<time>")
        .replace(/TXN\d{8}/g, "TXN<date>")
        .replace(/127\.0\.0\.1:\d+/g, "<host>")
    return {
      replies: replies.map((r) => ({ status: r.status, type: r.headers.get("content-type"), body: normal(JSON.stringify(r.json)) })),
      counters
    }
  })

describe("fast path", () => {
  it.scopedLive("answers the hot routes exactly as the router and gate do", () =>
    Effect.gen(function* () {
      const fast = yield* sandbox()
      // A gate fault that never fires sends every request through the Effect router and gate.
      const routed = yield* sandbox({ faults: "*.error_before=0" })
      const a = yield* script(fast)
      const b = yield* script(routed)
      expect(a.replies).toEqual(b.replies)
      expect(a.counters).toEqual(b.counters)
      expect(a.replies.map((r) => r.status)).toEqual([200, 422, 422, 422, 415, 200, 404, 200, 200, 422, 401, 406])
      yield* assertInvariants(fast)
      yield* assertInvariants(routed)
    })
  )
  it.scopedLive("waits out a latency fault itself; a client gone during the wait creates nothing", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "wallet.latency=300ms-300ms,payout.latency=400ms-400ms" })
      const started = Date.now()
      expect((yield* api.get("/v1/wallet")).status).toBe(200)
      expect(Date.now() - started).toBeGreaterThanOrEqual(290)
      // Aborted 100 ms into its 400 ms: the route never runs, as the router's interrupted handler.
      const aborted = yield* api.raw("/v1/payments/payout/mobile-money", {
        method: "POST",
        headers: { ...api.headers, "Content-Type": "application/json" },
        body: JSON.stringify(payoutBody()),
        signal: AbortSignal.timeout(100)
      }).pipe(Effect.either)
      expect(aborted._tag).toBe("Left")
      // Sent after the aborted one with the same latency, its wait ends after the aborted one's:
      // once it is answered, the aborted request's wait is over too. Only this payout exists.
      const paid = yield* api.send("POST", "/v1/payments/payout/mobile-money", payoutBody())
      expect(paid.status).toBe(200)
      const payouts = Object.values(api.state.transactions).filter((t) => t.type === "payout")
      expect(payouts.map((t) => t.reference)).toEqual([paid.json.reference])
      yield* assertInvariants(api)
    })
  )
})
