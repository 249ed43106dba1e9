/** The fault kinds added for pay-ins and webhooks, each observed from a plain HTTP client. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Crypto from "node:crypto"
import { parseFaults } from "../../src/sandbox/FaultGrammar.ts"
import { advance, assertInvariants, type Api, eventually, payin, payout, receiver, sandbox, status, webhooks } from "../kit/Sandbox.ts"

const counters = (api: Api) => Effect.map(api.get("/__sandbox/faults"), (r) => r.json.counters as Record<string, number>)
const payins = (api: Api) => Effect.map(api.get("/__sandbox/payins"), (r) => r.json.payins as Array<any>)

describe("429 bursts", () => {
  it("parses burst, burst_len, retry_after and retry_date", () => {
    const parsed = Either.getOrThrow(parseFaults("payout.burst=0.1,payout.burst_len=4,*.retry_after=3s,status.retry_date=1"))
    expect(parsed.endpoints.payout).toEqual({ burst: 0.1, burst_len: 4 })
    expect(parsed.endpoints["*"]).toEqual({ retry_after: 3000 })
    expect(parsed.endpoints.status).toEqual({ retry_date: 1 })
    expect(Either.isLeft(parseFaults("payout.burst_len=0"))).toBe(true)
  })

  it.scopedLive("a burst refuses burst_len requests with 429 and Retry-After in seconds, then lets requests through", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "wallet.burst=1,wallet.burst_len=3,wallet.retry_after=2s,seed=1" })
      const replies = []
      for (let i = 0; i < 3; i++) replies.push(yield* api.get("/v1/wallet"))
      expect(replies.map((r) => r.status)).toEqual([429, 429, 429])
      expect(replies.map((r) => r.headers.get("retry-after"))).toEqual(["2", "2", "2"])
      expect(replies[0].json).toMatchObject({ success: false, errors: { rate: [expect.stringMatching(/retry after 2 s/)] } })
      yield* api.send("PUT", "/__sandbox/faults", { faults: "wallet.burst=0.5,wallet.burst_len=2,seed=3" })
      const statuses = []
      for (let i = 0; i < 40; i++) statuses.push((yield* api.get("/v1/wallet")).status)
      expect(statuses).toContain(200)
      expect(statuses).toContain(429)
      const runs = statuses.join(",").split("200").filter((s) => s.includes("429"))
      for (const run of runs) expect(run.split("429").length - 1 >= 2).toBe(true)
      expect((yield* counters(api))["wallet.rate_limited"]).toBe(statuses.filter((s) => s === 429).length)
    })
  )

  it.scopedLive("retry_date=1 writes Retry-After as an HTTP date, in real time, for bursts and for rate=N", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "status.burst=1,status.retry_date=1,status.retry_after=5s,rate=1,*.retry_date=1" })
      const before = Date.now()
      const r = yield* api.get("/v1/payment/status/TXN1")
      const header = r.headers.get("retry-after") ?? ""
      expect(r.status).toBe(429)
      expect(header).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/)
      const wait = Date.parse(header) - before
      expect(wait).toBeGreaterThanOrEqual(4_000)
      expect(wait).toBeLessThanOrEqual(7_000)
      const limited = yield* api.get("/v1/wallet")
      expect(limited.status).toBe(429)
      expect(Number.isNaN(Date.parse(limited.headers.get("retry-after") ?? ""))).toBe(false)
    })
  )
})

describe("pay-in faults", () => {
  it.scopedLive("error_after on payin: the pay-in exists but the answer is a 500; error_before creates nothing", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payin.error_after=1", payinDelaySeconds: 0 })
      const r = yield* payin(api)
      expect(r.status).toBe(500)
      const created = yield* payins(api)
      expect(created).toHaveLength(1)
      expect((yield* payout(api)).status).toBe(200)
      yield* api.send("PUT", "/__sandbox/faults", { faults: "payin.error_before=1" })
      expect((yield* payin(api)).status).toBe(500)
      expect(yield* payins(api)).toHaveLength(1)
      expect((yield* counters(api))["payin.error_before"]).toBe(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("reset_after and latency on payin", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payin.reset_after=1,payin.latency=150ms" })
      const started = Date.now()
      const r = yield* Effect.either(
        api.raw("/v1/payments/payin/mobile-money", {
          method: "POST",
          headers: { ...api.headers, "Content-Type": "application/json" },
          body: JSON.stringify({ amount: 1 })
        })
      )
      expect(Either.isLeft(r) || r.right.status === 422).toBe(true)
      expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    })
  )
})

describe("webhook faults and delivery", () => {
  it.scopedLive("webhook_reorder: a held webhook is overtaken by the next one", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ faults: "payout.webhook_reorder=1,seed=2", payoutDelaySeconds: 60 })
      const first = yield* payout(api, { callback_url: hooks.url })
      yield* advance(api, 30)
      const second = yield* payout(api, { callback_url: hooks.url })
      yield* advance(api, 30)
      // The first outcome is held back before the second is produced: wait for the hold, not for a fixed time.
      yield* eventually(Effect.filterOrFail(counters(api), (c) => c["payout.webhook_reorder"] === 1))
      yield* advance(api, 30)
      const got = yield* webhooks(hooks, 2)
      expect(got.map((h) => h.body.data.reference)).toEqual([second.json.reference, first.json.reference])
      expect((yield* counters(api))["payout.webhook_reorder"]).toBe(1)
    })
  )

  it.scopedLive("webhook_reorder with no later event releases the held one after a short hold", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ faults: "payin.webhook_reorder=1", payinDelaySeconds: 0 })
      yield* payin(api, { callback_url: hooks.url })
      const [hook] = yield* webhooks(hooks, 1, 3_000)
      expect(hook.body.event).toBe("payin.completed")
    })
  )

  it.scopedLive("webhook_delay and webhook_dup on pay-ins: late, twice, same id", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ faults: "payin.webhook_delay=300ms,payin.webhook_dup=1", payinDelaySeconds: 0 })
      const r = yield* payin(api, { callback_url: hooks.url })
      const completedAt = Date.now()
      const got = yield* webhooks(hooks, 2)
      expect(got[0].at - completedAt).toBeGreaterThanOrEqual(250)
      expect(got.map((h) => h.body.id)).toEqual([`evt_${r.json.reference}_completed`, `evt_${r.json.reference}_completed`])
      expect((yield* counters(api))["payin.webhook_dup"]).toBe(1)
    })
  )

  it.scopedLive("an endpoint answering 5xx is retried with backoff until a 2xx, with the same event id", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver((n) => (n < 3 ? 503 : 200))
      const api = yield* sandbox({ payinDelaySeconds: 0 })
      const r = yield* payin(api, { callback_url: hooks.url, phoneNumber: "+237690000004" })
      const got = yield* webhooks(hooks, 4)
      expect(new Set(got.map((h) => h.body.id))).toEqual(new Set([`evt_${r.json.reference}_cancelled`]))
      const gaps = got.slice(1).map((h, i) => h.at - got[i].at)
      expect(gaps[2]).toBeGreaterThan(gaps[0])
      const c = yield* counters(api)
      expect(c).toMatchObject({ "webhooks.attempts": 4, "webhooks.refused": 3, "webhooks.delivered": 1 })
    })
  )

  it.scopedLive("webhookSecret signs the raw body with HMAC-SHA256; the event id is a header too", () =>
    Effect.gen(function* () {
      const seen: Array<{ headers: Record<string, string | string[] | undefined>; raw: string }> = []
      const Http = yield* Effect.promise(() => import("node:http"))
      const server = Http.createServer((req, res) => {
        let raw = ""
        req.on("data", (c) => (raw += c))
        req.on("end", () => {
          seen.push({ headers: req.headers, raw })
          res.end()
        })
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const port = (server.address() as { port: number }).port
      const api = yield* sandbox({ webhookSecret: "whsec_test", payinDelaySeconds: 0 })
      const r = yield* payin(api, { callback_url: `http://127.0.0.1:${port}/hook` })
      yield* eventually(Effect.suspend(() => (seen.length > 0 ? Effect.void : Effect.fail("no webhook yet"))))
      yield* status(api, r.json.reference)
      const [hit] = seen
      const expected = `sha256=${Crypto.createHmac("sha256", "whsec_test").update(hit.raw).digest("hex")}`
      expect(hit.headers["x-sandbox-signature"]).toBe(expected)
      expect(hit.headers["x-sandbox-event-id"]).toBe(`evt_${r.json.reference}_completed`)
      expect(JSON.parse(hit.raw).event).toBe("payin.completed")
    })
  )
})
