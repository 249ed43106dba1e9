/**
 * Conformance: one named test per row of payment-api-v1.md (Rules, Observable facts, Balance movements,
 * Limits, Errors), the name quoting the spec. Each runs on a fresh sandbox and ends with the money invariant.
 */
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import { PAYIN_NUMBERS, PAYOUT_NUMBERS } from "../../src/sandbox/TestNumbers.ts"
import * as H from "../kit/Sandbox.ts"

const { advance, cardPayin, payin, payout, status, statusIs } = H
const { PAY, rule } = H

const history = (api: H.Api, query = "") => Effect.map(api.get(`/v1/wallet/transactions${query}`), (r) => r)
const completedPayout = (api: H.Api, overrides: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const r = yield* payout(api, overrides)
    yield* advance(api, 10)
    return (yield* statusIs(api, r.json.reference, "completed")).reference as string
  })

describe("GET /wallet/transactions", () => {
  rule("Rule: When a date filter is not in the form YYYY-MM-DD, then the request fails with envelope A and errors.from_date (or the matching parameter name)", (api) =>
    Effect.gen(function* () {
      const r = yield* history(api, "?from_date=01-03-2025&to_date=2025/03/31")
      expect(r.status).toBe(422)
      expect(r.json).toMatchObject({ success: false, errors: { from_date: [expect.stringMatching(/YYYY-MM-DD/)], to_date: [expect.stringMatching(/YYYY-MM-DD/)] } })
    })
  )
  rule("Rule: Only the past 90 days of history are available through this endpoint", (api) =>
    Effect.gen(function* () {
      const old = yield* completedPayout(api)
      yield* advance(api, 91 * 86_400)
      const refs = (yield* history(api)).json.data.transactions.map((t: any) => t.reference)
      expect(refs).not.toContain(old)
    })
  )
  rule("Rule: Behaviour when page is beyond total_pages: not shown (sandbox: an empty page, links.next null)", (api) =>
    Effect.gen(function* () {
      const r = yield* history(api, "?page=9")
      expect(r.json.data.transactions).toEqual([])
      expect(r.json.data.pagination).toMatchObject({ current_page: 9, total_pages: 1, links: { next: null } })
    })
  )
})

describe("GET /payment/status/{reference}", () => {
  rule("Rule: When no transaction has the reference, then envelope A is returned with message stating the transaction was not found and errors.reference", (api) =>
    Effect.gen(function* () {
      const r = yield* status(api, "TXN404")
      expect(r.json).toMatchObject({ success: false, message: expect.stringMatching(/not found/i), errors: { reference: [expect.stringMatching(/TXN404/)] } })
    })
  )
  rule("Rule: History is available for 90 days", (api) =>
    Effect.gen(function* () {
      const p = yield* payin(api)
      yield* advance(api, 89 * 86_400)
      expect((yield* status(api, p.json.reference)).status).toBe(200)
      yield* advance(api, 2 * 86_400)
      expect((yield* status(api, p.json.reference)).status).toBe(404)
    })
  )
  rule("Rule: The endpoint is subject to the same rate limits as other endpoints", (api) =>
    Effect.gen(function* () {
      yield* api.send("PUT", "/__sandbox/faults", { faults: "rate=1" })
      const codes = [(yield* api.get("/v1/wallet")).status, (yield* status(api, "TXN1")).status]
      expect(codes).toEqual([200, 429])
      yield* api.send("PUT", "/__sandbox/faults", { faults: "" })
    })
  )
})

describe("POST /payments/payin/mobile-money", () => {
  rule("Rule: The customer receives a prompt on their phone to authorize the payment (acceptance: envelope B, status success, a message to confirm)", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api)
      expect(r.json).toMatchObject({ error: false, status: "success", reference: expect.stringMatching(/^TXN/) })
      expect(r.json.message).toMatch(/confirm/)
      yield* statusIs(api, r.json.reference, "completed")
    })
  )
  rule("Rule: A request not completed within 15 minutes expires", (api) =>
    Effect.gen(function* () {
      const hooks = yield* H.receiver()
      const r = yield* payin(api, { phoneNumber: PAYIN_NUMBERS.CM.timeout, callback_url: hooks.url })
      yield* advance(api, 15 * 60)
      expect((yield* status(api, r.json.reference)).json.data.status).toBe("expired")
      expect((yield* H.webhooks(hooks, 1))[0].body.event).toBe("payin.expired")
    })
  )
  rule("Rule: The account holder name may be checked against customer name (sandbox: recorded, not checked)", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api, { customer: { name: "Someone Else", phone: "+237690000001", email: "s@example.com" } })
      expect((yield* statusIs(api, r.json.reference, "completed")).customer.name).toBe("Someone Else")
    })
  )
  rule("Rule: Fees follow the merchant agreement and may vary by operator (sandbox: 2% mobile money, configurable)", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api, { amount: 10_000 })
      expect((yield* statusIs(api, r.json.reference, "completed")).fee).toBe(200)
    })
  )
  rule("Rule: Orange-type operators typically need a 4-digit PIN to confirm; other operators may use USSD prompts or app notifications", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api)
      expect(r.json.message).toMatch(/PIN or USSD/)
      yield* statusIs(api, r.json.reference, "completed")
    })
  )
  rule("Rule: Test environment: test number 1 gives success, number 2 failure (insufficient funds), number 3 timeout (no response), number 4 user cancellation", (api) =>
    Effect.gen(function* () {
      for (const [country, operator] of [["CM", "carrier1_cm"], ["CI", "carrier1_ci"], ["SN", "carrier2_sn"], ["BJ", "carrier1_bj"], ["TG", "carrier7_tg"]] as const) {
        const n = PAYIN_NUMBERS[country]
        const currency = country === "CM" ? "XAF" : "XOF"
        const refs = []
        for (const phone of [n.success, n.insufficient_funds, n.timeout, n.cancelled]) refs.push((yield* payin(api, { phoneNumber: phone, operator, currency })).json.reference)
        yield* statusIs(api, refs[0], "completed")
        expect((yield* statusIs(api, refs[1], "failed")).status_description).toMatch(/insufficient funds/i)
        expect((yield* status(api, refs[2])).json.data.status).toBe("pending")
        yield* statusIs(api, refs[3], "cancelled")
      }
    })
  )
})

describe("POST /payments/payin/card", () => {
  rule("Rule: The merchant redirects the customer to payment_url (a checkout page with a card form)", (api) =>
    Effect.gen(function* () {
      const r = yield* cardPayin(api)
      const page = yield* Effect.promise(() => fetch(r.json.payment_url).then(async (x) => ({ status: x.status, html: await x.text() })))
      expect(page.status).toBe(200)
      expect(page.html).toMatch(/<form method="post"[\s\S]*name="number"[\s\S]*name="expiry"[\s\S]*name="cvv"/)
    })
  )
  rule("Rule: After payment the customer is redirected to return_url and a webhook with the final status goes to callback_url", (api) =>
    Effect.gen(function* () {
      const hooks = yield* H.receiver()
      const r = yield* cardPayin(api, { callback_url: hooks.url })
      const done = yield* H.submitCheckout(r.json.payment_url, PAY)
      expect(done.location).toMatch(/^https:\/\/merchant\.example\/return\?/)
      expect((yield* H.webhooks(hooks, 1))[0].body).toMatchObject({ event: "payin.completed", data: { reference: r.json.reference, status: "completed" } })
    })
  )
  rule("Rule: Checkout pages expire after 30 minutes", (api) =>
    Effect.gen(function* () {
      const r = yield* cardPayin(api)
      yield* advance(api, 29 * 60)
      expect((yield* status(api, r.json.reference)).json.data.status).toBe("pending")
      yield* advance(api, 60)
      expect((yield* H.submitCheckout(r.json.payment_url, PAY)).status).toBe(410)
    })
  )
  rule("Rule: Test environment: two test cards, any future expiry, any 3-digit CVV; the first yields a successful payment and the second a declined one", (api) =>
    Effect.gen(function* () {
      const [a, b] = [yield* cardPayin(api), yield* cardPayin(api)]
      expect((yield* H.submitCheckout(a.json.payment_url, { ...PAY, expiry: "01/31", cvv: "007" })).location).toMatch(/status=completed/)
      expect((yield* H.submitCheckout(b.json.payment_url, { ...PAY, number: "4000000000000002" })).location).toMatch(/status=failed/)
    })
  )
})

describe("POST /payments/payout/mobile-money", () => {
  rule("Rule: The wallet must hold sufficient balance; otherwise the request is refused", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api, { amount: 2_000_000 })
      expect(r.json).toMatchObject({ success: false, errors: { amount: [expect.stringMatching(/Insufficient/)] } })
    })
  )
  rule("Rule: Sequence: request received; balance verified; payout queued; transfer initiated; on completion or failure a webhook goes to callback_url; the status is updated", (api) =>
    Effect.gen(function* () {
      const hooks = yield* H.receiver()
      const r = yield* payout(api, { callback_url: hooks.url })
      expect(r.json.status).toBe("pending")
      yield* advance(api, 5)
      expect((yield* status(api, r.json.reference)).json.data.status).toBe("processing")
      yield* advance(api, 5)
      expect((yield* H.webhooks(hooks, 1))[0].body.event).toBe("payout.completed")
      expect((yield* status(api, r.json.reference)).json.data.status).toBe("completed")
    })
  )
  rule("Rule: Processing takes typically 5 minutes to 24 hours depending on the operator (sandbox: a configurable delay)", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api)
      yield* advance(api, 299)
      expect((yield* status(api, r.json.reference)).json.data.status).not.toBe("completed")
      yield* advance(api, 1)
      yield* statusIs(api, r.json.reference, "completed")
    }), { payoutDelaySeconds: 300 }
  )
  rule("Rule: Some operators verify the recipient name (sandbox: recorded, not checked)", (api) =>
    Effect.gen(function* () {
      const ref = yield* completedPayout(api, { customer: { name: "Other Name", phone: "+237670000001", email: "o@example.com" } })
      expect((yield* status(api, ref)).json.data.customer.name).toBe("Other Name")
    })
  )
  rule("Rule: Test environment: test number 1 gives success, number 2 failure (recipient not found), number 3 delayed success after 30 minutes, number 4 cancellation", (api) =>
    Effect.gen(function* () {
      const n = PAYOUT_NUMBERS.CM
      const refs = []
      for (const phone of [n.success, n.failure, n.delayed, n.cancelled]) refs.push((yield* payout(api, { phoneNumber: phone })).json.reference)
      yield* advance(api, 10)
      yield* statusIs(api, refs[0], "completed")
      expect((yield* statusIs(api, refs[1], "failed")).status_description).toMatch(/not found/)
      yield* statusIs(api, refs[3], "cancelled")
      expect((yield* status(api, refs[2])).json.data.status).not.toBe("completed")
      yield* advance(api, 30 * 60)
      yield* statusIs(api, refs[2], "completed")
    })
  )
  rule("Rule: A separate bulk payout interface exists and is outside this document (sandbox: not served)", (api) =>
    Effect.gen(function* () {
      expect((yield* api.send("POST", "/v1/payments/payout/bulk", {})).status).toBe(404)
    })
  )
})

describe("Authentication", () => {
  rule("Rule: when credentials are invalid, then the response is envelope A with errors.authentication", (api) =>
    Effect.gen(function* () {
      for (const path of ["/v1/wallet", "/v1/payment/status/X"]) {
        const r = yield* api.get(path, { "X-API-Secret": "wrong" })
        expect(r.json).toMatchObject({ success: false, errors: { authentication: [expect.any(String)] } })
      }
      const p = yield* api.send("POST", "/v1/payments/payin/card", H.cardBody(), { "X-API-Key": "wrong" })
      expect(p.json.errors.authentication).toBeDefined()
    })
  )
})
