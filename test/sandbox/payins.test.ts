/** Pay-ins over HTTP: mobile money outcomes and expiry, card checkout by form posts, settlement, refunds. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { advance, assertInvariants, cardPayin, payin, receiver, sandbox, status, statusIs, submitCheckout, wallet, webhooks } from "../kit/Sandbox.ts"

const PAY = { number: "4242 4242 4242 4242", expiry: "12/39", cvv: "123", action: "pay" }

describe("mobile money pay-in", () => {
  it.scopedLive("accepts with status success, completes, credits amount - fee to pending, webhook payin.completed", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ payinDelaySeconds: 0 })
      const r = yield* payin(api, { callback_url: hooks.url })
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({ error: false, status: "success", currency: "XAF" })
      expect(r.json.message).toMatch(/confirm/)
      const record = yield* statusIs(api, r.json.reference, "completed")
      expect(record).toMatchObject({ type: "payin", amount: 10_000, fee: 200, operator: "carrier1_cm", payment_details: { order: "42" } })
      expect(record.customer).toEqual({ name: "Jean Mbarga", phone: "+237690000001", email: "jean@example.com" })
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 1_000_000, pending_balance: 9_800, available_balance: 1_000_000 })
      const history = yield* api.get("/v1/wallet/transactions?type=payin")
      expect(history.json.data.transactions[0]).toMatchObject({ reference: r.json.reference, net_amount: 9_800, customer_name: "Jean Mbarga" })
      const [hook] = yield* webhooks(hooks, 1)
      expect(hook.body).toMatchObject({ id: `evt_${r.json.reference}_completed`, event: "payin.completed", data: { status: "completed" } })
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("test numbers: insufficient funds fails, timeout expires after 15 minutes, cancellation", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payinDelaySeconds: 0 })
      const failed = yield* payin(api, { phoneNumber: "+2250500000002", operator: "carrier1_ci", currency: "XOF" })
      const timeout = yield* payin(api, { phoneNumber: "+237690000003" })
      const cancelled = yield* payin(api, { phoneNumber: "+221780000004", operator: "carrier2_sn", currency: "XOF" })
      expect((yield* statusIs(api, failed.json.reference, "failed")).status_description).toMatch(/insufficient funds/i)
      expect((yield* statusIs(api, cancelled.json.reference, "cancelled")).fee).toBe(0)
      yield* advance(api, 14 * 60)
      expect((yield* status(api, timeout.json.reference)).json.data.status).toBe("pending")
      yield* advance(api, 61)
      expect((yield* status(api, timeout.json.reference)).json.data.status).toBe("expired")
      expect(yield* wallet(api, "XAF")).toMatchObject({ pending_balance: 0 })
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("settles after the settlement delay; /__sandbox/settle settles now; refund takes the net back", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ payinDelaySeconds: 0, settlementDelaySeconds: 3600 })
      const a = yield* payin(api, { callback_url: hooks.url })
      const b = yield* payin(api, { amount: 5_000, callback_url: hooks.url })
      yield* statusIs(api, a.json.reference, "completed")
      yield* statusIs(api, b.json.reference, "completed")
      yield* advance(api, 3601)
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 1_014_700, pending_balance: 0 })
      const c = yield* payin(api, { amount: 1_000 })
      yield* statusIs(api, c.json.reference, "completed")
      expect((yield* api.send("POST", "/__sandbox/settle", {})).json).toEqual({ settled: [{ currency: "XAF", amount: 980 }] })
      const refunded = yield* api.send("POST", "/__sandbox/refund", { reference: a.json.reference })
      expect(refunded.json.transaction.status).toBe("refunded")
      expect(yield* wallet(api, "XAF")).toMatchObject({ balance: 1_005_880, pending_balance: 0 })
      yield* statusIs(api, a.json.reference, "refunded")
      const events = (yield* webhooks(hooks, 3)).map((h) => h.body.event)
      expect(events.sort()).toEqual(["payin.completed", "payin.completed", "payin.refunded"])
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("every required field is checked: 422 envelope B", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* payin(api, { phoneNumber: undefined, customer: { name: "A", phone: "1" } })
      expect(r.status).toBe(422)
      expect(r.json).toMatchObject({ error: true, status: "failed", reference: null })
      expect(r.json.error_message).toMatch(/phoneNumber.*customer\.email/)
    })
  )
})

describe("card pay-in", () => {
  it.scopedLive("payment_url, expires_at 30 minutes on; the success card completes and redirects to return_url", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* cardPayin(api)
      expect(r.json).toMatchObject({ error: false, status: "success", error_message: null, amount: 2_500, currency: "USD" })
      expect(r.json.payment_url).toBe(`${api.origin}/checkout/${r.json.reference}`)
      const page = yield* Effect.promise(() => fetch(r.json.payment_url).then((x) => x.text()))
      expect(page).toMatch(/<label for="number">Card number<\/label>/)
      const done = yield* submitCheckout(r.json.payment_url, PAY)
      expect(done.status).toBe(303)
      expect(done.location).toBe(`https://merchant.example/return?reference=${r.json.reference}&status=completed`)
      expect((yield* status(api, r.json.reference)).json.data).toMatchObject({ status: "completed", amount: 25, fee: 0.75 })
      expect(yield* wallet(api, "USD")).toMatchObject({ pending_balance: 24.25 })
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("declined card fails; invalid input is shown; cancel goes to cancel_url; refused after 30 minutes", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const [a, b, c] = [yield* cardPayin(api), yield* cardPayin(api, { currency: "EUR" }), yield* cardPayin(api)]
      const bad = yield* submitCheckout(a.json.payment_url, { number: "1234", expiry: "01/20", cvv: "12", action: "pay" })
      expect(bad.status).toBe(422)
      expect(bad.html).toMatch(/role="alert"/)
      expect(bad.html).toMatch(/The card number is not valid[\s\S]*The card has expired[\s\S]*3-digit/)
      const declined = yield* submitCheckout(a.json.payment_url, { ...PAY, number: "4000000000000002" })
      expect(declined.location).toMatch(/status=failed/)
      const cancelled = yield* submitCheckout(b.json.payment_url, { action: "cancel" })
      expect(cancelled.location).toMatch(/^https:\/\/merchant\.example\/cancel\?.*status=cancelled/)
      yield* advance(api, 31 * 60)
      expect((yield* status(api, c.json.reference)).json.data.status).toBe("expired")
      const late = yield* submitCheckout(c.json.payment_url, PAY)
      expect(late.status).toBe(410)
      expect(late.html).toMatch(/expired/)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("card input: amount in the smallest unit, operators cardnet1/cardnet2, USD and EUR only", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      expect((yield* cardPayin(api, { amount: 12.5 })).json.error_message).toMatch(/smallest currency unit/)
      expect((yield* cardPayin(api, { currency: "XAF" })).json.error_message).toMatch(/USD, EUR/)
      expect((yield* cardPayin(api, { operator: "cardnet3" })).status).toBe(422)
      expect((yield* cardPayin(api, { operator: "cardnet2", currency: "EUR" })).json.error).toBe(false)
    })
  )
})
