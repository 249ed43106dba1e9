import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { assertInvariants, payout, payoutBody, sandbox, wallet } from "../kit/Sandbox.ts"

const refusedWith = (overrides: Record<string, unknown>, key: string) =>
  Effect.gen(function* () {
    const api = yield* sandbox()
    const r = yield* payout(api, overrides)
    expect(r.status, JSON.stringify(r.json)).toBe(422)
    expect(r.json.success).toBe(false)
    expect(typeof r.json.message).toBe("string")
    expect(Object.keys(r.json.errors)).toEqual([key])
    expect(r.json.errors[key][0]).toEqual(expect.any(String))
    expect((yield* api.get("/__sandbox/payouts")).json.payouts).toEqual([])
    yield* assertInvariants(api)
  })

const without = (field: string) => {
  const body: Record<string, unknown> = payoutBody()
  delete body[field]
  return body
}

describe("payout validation: 422 envelope A keyed by field", () => {
  for (const field of ["amount", "currency", "phoneNumber", "operator", "return_url", "cancel_url", "callback_url", "description", "customer"]) {
    it.scopedLive(`missing ${field}`, () =>
      Effect.gen(function* () {
        const api = yield* sandbox()
        const r = yield* api.send("POST", "/v1/payments/payout/mobile-money", without(field))
        expect(r.status).toBe(422)
        expect(r.json.errors[field]).toEqual([expect.any(String)])
        yield* assertInvariants(api)
      })
    )
  }

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["unknown operator", { operator: "carrier9_cm" }, "operator"],
    ["currency not the operator's", { currency: "XOF" }, "currency"],
    ["unknown currency", { currency: "ABC" }, "currency"],
    ["number of another country", { phoneNumber: "+2250700000001" }, "phoneNumber"],
    ["fixed-line number", { phoneNumber: "+237222123456" }, "phoneNumber"],
    ["garbage number", { phoneNumber: "hello" }, "phoneNumber"],
    ["amount zero", { amount: 0 }, "amount"],
    ["negative amount", { amount: -5 }, "amount"],
    ["fractional XAF", { amount: 100.5 }, "amount"],
    ["amount as text", { amount: "1000" }, "amount"],
    ["invalid callback_url", { callback_url: "not a url" }, "callback_url"],
    ["ftp return_url", { return_url: "ftp://x.example/" }, "return_url"],
    ["invalid cancel_url", { cancel_url: "//nope" }, "cancel_url"],
    ["empty description", { description: "   " }, "description"],
    ["payout_details not an object", { payout_details: [1, 2] }, "payout_details"],
    ["customer not an object", { customer: "Awa" }, "customer"],
    ["customer without name", { customer: { phone: "+237670000001", email: "a@b.co" } }, "customer.name"],
    ["customer without phone", { customer: { name: "Awa", email: "a@b.co" } }, "customer.phone"],
    ["customer without email", { customer: { name: "Awa", phone: "+237670000001" } }, "customer.email"],
    ["customer with invalid email", { customer: { name: "Awa", phone: "+237670000001", email: "awa@" } }, "customer.email"]
  ]
  for (const [name, overrides, key] of cases) it.scopedLive(name, () => refusedWith(overrides, key))

  it.scopedLive("several errors at once", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* payout(api, { amount: -1, callback_url: "x", customer: { name: "", phone: "1", email: "bad" } })
      expect(r.status).toBe(422)
      expect(Object.keys(r.json.errors).sort()).toEqual(["amount", "callback_url", "customer.email", "customer.name"])
    })
  )

  it.scopedLive("insufficient balance -> errors.amount, nothing reserved; fee counts", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ fund: { XAF: 10_000 } })
      const tooMuch = yield* payout(api, { amount: 9_950 })
      expect(tooMuch.status).toBe(422)
      expect(Object.keys(tooMuch.json.errors)).toEqual(["amount"])
      expect((yield* wallet(api, "XAF")).reserved_balance).toBe(0)
      const fits = yield* payout(api, { amount: 9_900 })
      expect(fits.status).toBe(200)
      expect(yield* wallet(api, "XAF")).toMatchObject({ reserved_balance: 9_999, available_balance: 1 })
      expect((yield* payout(api, { amount: 1 })).json.errors.amount).toBeDefined()
      const xof = yield* payout(api, { currency: "XOF", operator: "carrier1_ci", phoneNumber: "+2250700000001" })
      expect(xof.json.errors.amount).toBeDefined()
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("accepts national formats and normalises to E.164", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payoutDelaySeconds: 60 })
      const r = yield* payout(api, { currency: "XOF", operator: "carrier1_bj", phoneNumber: "01 90 00 00 01" })
      expect(r.status).toBe(200)
      expect(r.json.phoneNumber).toBe("+2290190000001")
      yield* assertInvariants(api)
    })
  )
})

describe("headers and envelopes", () => {
  const endpoints: Array<[string, string]> = [
    ["GET", "/v1/wallet"],
    ["GET", "/v1/wallet/transactions"],
    ["GET", "/v1/wallet/summary"],
    ["GET", "/v1/payment/status/TXN1"],
    ["POST", "/v1/payments/payout/mobile-money"],
    // Not /__sandbox/test-data: public test numbers, open from this machine (test/sandbox/TestData.test.ts).
    ["GET", "/__sandbox/faults"],
    ["POST", "/__sandbox/fund"],
    ["GET", "/__sandbox/invariants"]
  ]

  it.scopedLive("401 envelope A with errors.authentication on every endpoint, for a bad key, a bad secret or none", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      for (const [method, path] of endpoints) {
        const bads: Array<Record<string, string>> = [{ "X-API-Key": "wrong" }, { "X-API-Secret": "wrong" }]
        for (const bad of bads) {
          const r = method === "GET" ? yield* api.get(path, bad) : yield* api.send(method, path, payoutBody(), bad)
          expect(r.status, `${method} ${path}`).toBe(401)
          expect(r.json.success).toBe(false)
          expect(r.json.errors.authentication).toEqual([expect.any(String)])
        }
        const none = yield* Effect.promise(() => fetch(`${api.origin}${path}`, { method }))
        expect(none.status).toBe(401)
      }
      expect((yield* api.get("/__sandbox/payouts")).json.payouts).toEqual([])
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("406 when Accept excludes JSON; wildcards and a missing Accept pass", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const refused = yield* api.get("/v1/wallet", { Accept: "text/html" })
      expect(refused.status).toBe(406)
      expect(refused.json.errors.accept).toBeDefined()
      expect((yield* api.get("/v1/wallet", { Accept: "application/json;q=0, text/html" })).status).toBe(406)
      expect((yield* api.get("/v1/wallet", { Accept: "*/*" })).status).toBe(200)
      expect((yield* api.get("/v1/wallet", { Accept: "text/html, application/*;q=0.5" })).status).toBe(200)
      const bare = yield* Effect.promise(() => fetch(`${api.baseUrl}/wallet`, { headers: { "X-API-Key": "sandbox-key", "X-API-Secret": "sandbox-secret" } }))
      expect(bare.status).toBe(200)
    })
  )

  it.scopedLive("415 when a body is not declared application/json; 422 for a body that is not a JSON object", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const path = "/v1/payments/payout/mobile-money"
      const plain = yield* api.send("POST", path, JSON.stringify(payoutBody()), { "Content-Type": "text/plain" })
      expect(plain.status).toBe(415)
      expect(plain.json.errors.content_type).toBeDefined()
      expect((yield* api.send("POST", path, payoutBody(), { "Content-Type": "application/json; charset=utf-8" })).status).toBe(200)
      for (const body of ["{not json", "[1,2]", "", "null"]) {
        const r = yield* api.send("POST", path, body)
        expect(r.status).toBe(422)
        expect(r.json.errors.body).toBeDefined()
      }
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("unknown paths are 404 envelope A", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* api.get("/v1/nope")
      expect(r.status).toBe(404)
      expect(r.json).toMatchObject({ success: false, errors: { path: [expect.any(String)] } })
    })
  )
})
