/** Conformance, continued: Observable facts, Balance movements, Limits and Errors of payment-api-v1.md. */
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import { PAYIN_NUMBERS } from "../../src/sandbox/TestNumbers.ts"
import * as H from "../kit/Sandbox.ts"

const { advance, cardPayin, payin, payout, status, statusIs, wallet } = H
const { PAY, rule } = H

describe("Observable facts about progress", () => {
  rule("Fact: Payout accepted -> status pending is returned; payout is queued; the wallet balance is verified as sufficient first", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api, { amount: 10_000 })
      expect(r.json.status).toBe("pending")
      expect(yield* wallet(api, "XAF")).toMatchObject({ reserved_balance: 10_100 })
    })
  )
  rule("Fact: Payout completed or failed -> a webhook is sent to callback_url; the payout status is updated", (api) =>
    Effect.gen(function* () {
      const hooks = yield* H.receiver()
      const r = yield* payout(api, { phoneNumber: "+237670000002", callback_url: hooks.url })
      yield* advance(api, 10)
      expect((yield* H.webhooks(hooks, 1))[0].body).toMatchObject({ event: "payout.failed", data: { reference: r.json.reference, status: "failed" } })
    })
  )
  rule("Fact: Mobile money pay-in not completed -> 15 minutes elapse -> the request expires", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api, { phoneNumber: PAYIN_NUMBERS.CM.timeout })
      yield* advance(api, 15 * 60)
      yield* statusIs(api, r.json.reference, "expired")
    })
  )
  rule("Fact: Card checkout not completed -> 30 minutes elapse -> the checkout page expires", (api) =>
    Effect.gen(function* () {
      const r = yield* cardPayin(api)
      yield* advance(api, 30 * 60)
      yield* statusIs(api, r.json.reference, "expired")
      const page = yield* Effect.promise(() => fetch(r.json.payment_url).then((x) => x.status))
      expect(page).toBe(410)
    })
  )
})

describe("Wallet balance movements", () => {
  rule("Movement: Pay-in made by a customer -> funds go first to pending_balance", (api) =>
    Effect.gen(function* () {
      yield* statusIs(api, (yield* payin(api)).json.reference, "completed")
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 1_000_000, pending_balance: 9_800 })
    })
  )
  rule("Movement: Settlement by the payment processor (typically 1-2 business days) -> funds move from pending to available", (api) =>
    Effect.gen(function* () {
      yield* statusIs(api, (yield* payin(api)).json.reference, "completed")
      yield* advance(api, 86_400)
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 1_009_800, pending_balance: 0, available_balance: 1_009_800 })
    })
  )
  rule("Movement: Payout initiation -> funds move from available to reserved", (api) =>
    Effect.gen(function* () {
      yield* payout(api, { amount: 20_000 })
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 1_000_000, reserved_balance: 20_200, available_balance: 979_800 })
    })
  )
  rule("Movement: Payout completion -> funds plus fees are deducted from reserved", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api, { amount: 20_000 })
      yield* advance(api, 10)
      yield* statusIs(api, r.json.reference, "completed")
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 979_800, reserved_balance: 0 })
    })
  )
  rule("Movement: Payout fees are deducted from the wallet balance, not from the payout amount", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api, { amount: 20_000 })
      yield* advance(api, 10)
      const record = yield* statusIs(api, r.json.reference, "completed")
      expect(record).toMatchObject({ amount: 20_000, fee: 200 })
      const row = (yield* api.get("/v1/wallet/transactions?type=payout")).json.data.transactions[0]
      expect(row).toMatchObject({ amount: 20_000, fee: 200, net_amount: 20_200 })
    })
  )
  rule("Movement (sandbox): a refund of a completed pay-in takes its net amount back, with a payin.refunded webhook", (api) =>
    Effect.gen(function* () {
      const hooks = yield* H.receiver()
      const r = yield* payin(api, { callback_url: hooks.url })
      yield* statusIs(api, r.json.reference, "completed")
      yield* api.send("POST", "/__sandbox/refund", { reference: r.json.reference })
      expect(yield* wallet(api, "XAF")).toMatchObject({ pending_balance: 0, balance: 1_000_000 })
      expect((yield* H.webhooks(hooks, 2)).map((h) => h.body.event).sort()).toEqual(["payin.completed", "payin.refunded"])
    })
  )
})

describe("Limits", () => {
  rule("Limit: Default page size 20 (GET /wallet/transactions)", (api) =>
    Effect.gen(function* () {
      for (let i = 0; i < 21; i++) yield* api.send("POST", "/__sandbox/fund", { currency: "XOF", amount: 1 })
      expect((yield* api.get("/v1/wallet/transactions")).json.data.pagination).toMatchObject({ per_page: 20, count: 20 })
    })
  )
  rule("Limit: Maximum page size 100 (GET /wallet/transactions)", (api) =>
    Effect.gen(function* () {
      expect((yield* api.get("/v1/wallet/transactions?limit=100")).status).toBe(200)
      expect((yield* api.get("/v1/wallet/transactions?limit=101")).json.errors.limit).toBeDefined()
    })
  )
  rule("Limit: Default page 1 (GET /wallet/transactions)", (api) =>
    Effect.gen(function* () {
      expect((yield* api.get("/v1/wallet/transactions")).json.data.pagination.current_page).toBe(1)
    })
  )
  rule("Limit: History depth 90 days (wallet transactions and status lookup)", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api)
      yield* advance(api, 90 * 86_400 + 1)
      expect((yield* status(api, r.json.reference)).status).toBe(404)
      expect((yield* api.get("/v1/wallet/transactions?type=payin")).json.data.transactions).toEqual([])
    })
  )
  rule("Limit: Mobile money pay-in request lifetime 15 minutes", (api) =>
    Effect.gen(function* () {
      const r = yield* payin(api, { phoneNumber: PAYIN_NUMBERS.CM.timeout })
      yield* advance(api, 15 * 60 - 1)
      expect((yield* status(api, r.json.reference)).json.data.status).toBe("pending")
      yield* advance(api, 1)
      expect((yield* status(api, r.json.reference)).json.data.status).toBe("expired")
    })
  )
  rule("Limit: Card checkout lifetime 30 minutes", (api) =>
    Effect.gen(function* () {
      const r = yield* cardPayin(api)
      expect(Date.parse(r.json.expires_at) - Date.parse((yield* api.get("/__sandbox/clock")).json.now)).toBeGreaterThan(29 * 60_000)
      yield* advance(api, 30 * 60 - 5)
      expect((yield* H.submitCheckout(r.json.payment_url, PAY)).status).toBe(303)
    })
  )
  rule("Limit: Delayed test payout succeeds after 30 minutes", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api, { phoneNumber: "+237670000003" })
      yield* advance(api, 30 * 60 - 1)
      expect((yield* status(api, r.json.reference)).json.data.status).not.toBe("completed")
      yield* advance(api, 1)
      yield* statusIs(api, r.json.reference, "completed")
    })
  )
  rule("Limit: Payout processing time typically 5 minutes to 24 hours (sandbox: payoutDelaySeconds)", (api) =>
    Effect.gen(function* () {
      const r = yield* payout(api)
      expect(Date.parse(r.json.estimated_delivery) - Date.parse((yield* api.get("/__sandbox/clock")).json.now)).toBeGreaterThan(5 * 60_000 - 2_000)
    }), { payoutDelaySeconds: 300 }
  )
  rule("Limit: Settlement time typically 1-2 business days (sandbox: settlementDelaySeconds, default one day)", (api) =>
    Effect.gen(function* () {
      yield* statusIs(api, (yield* payin(api)).json.reference, "completed")
      yield* advance(api, 86_000)
      expect((yield* wallet(api, "XAF")).pending_balance).toBe(9_800)
      yield* advance(api, 400)
      expect((yield* wallet(api, "XAF")).pending_balance).toBe(0)
    })
  )
  rule("Limit: Amount unit (card) smallest currency unit", (api) =>
    Effect.gen(function* () {
      const r = yield* cardPayin(api, { amount: 1_050, currency: "EUR" })
      expect(r.json.amount).toBe(1_050)
      expect((yield* status(api, r.json.reference)).json.data.amount).toBe(10.5)
      expect((yield* cardPayin(api, { amount: 10.5 })).json.error).toBe(true)
    })
  )
  rule("Limit: All balance queries, status lookups and other calls are subject to standard rate limits (sandbox: rate=N, 429 + Retry-After)", (api) =>
    Effect.gen(function* () {
      const r = [yield* api.get("/v1/wallet"), yield* api.get("/v1/wallet")][1]
      expect(r.status).toBe(429)
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      yield* api.send("PUT", "/__sandbox/faults", { faults: "" })
    }), { faults: "rate=1" }
  )
})

describe("Errors: conditions shown", () => {
  rule("Error: Invalid credentials (any endpoint) -> errors.authentication", (api) =>
    Effect.gen(function* () {
      expect((yield* api.get("/v1/wallet/summary", { "X-API-Key": "bad" })).json.errors.authentication).toBeDefined()
    })
  )
  rule("Error: Date filter not YYYY-MM-DD (GET /wallet/transactions) -> errors.<date parameter>", (api) =>
    Effect.gen(function* () {
      expect((yield* api.get("/v1/wallet/transactions?to_date=tomorrow")).json.errors.to_date).toBeDefined()
    })
  )
  rule("Error: Unknown reference (GET /payment/status/{reference}) -> errors.reference", (api) =>
    Effect.gen(function* () {
      expect((yield* status(api, "TXNNOPE")).json.errors.reference).toBeDefined()
    })
  )
  rule("Error: Wallet balance too low (payout) -> errors.amount", (api) =>
    Effect.gen(function* () {
      expect((yield* payout(api, { amount: 999_999 })).json.errors).toEqual({ amount: [expect.any(String)] })
    })
  )
  rule("Error: Phone number format invalid for operator (payout) -> errors.phoneNumber", (api) =>
    Effect.gen(function* () {
      expect((yield* payout(api, { phoneNumber: "+2250700000001" })).json.errors).toEqual({ phoneNumber: [expect.any(String)] })
    })
  )
  rule("Error: Any other failure of a pay-in -> error true with error_message (envelope B, HTTP 422)", (api) =>
    Effect.gen(function* () {
      for (const r of [yield* payin(api, { amount: -5 }), yield* cardPayin(api, { callback_url: "ftp://x" }), yield* api.send("POST", "/v1/payments/payin/card", "[]")]) {
        expect(r.status).toBe(422)
        expect(r.json).toMatchObject({ error: true, status: "failed", error_message: expect.any(String) })
      }
    })
  )
})
