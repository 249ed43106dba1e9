import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Ref } from "effect"
import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import { feeFor, DEFAULT_FEES } from "../../src/sandbox/Fees.ts"
import { checkInvariants } from "../../src/sandbox/Invariants.ts"
import { entryViolation } from "../../src/sandbox/Journal.ts"
import { parseFund } from "../../src/sandbox/Sandbox.ts"
import { fund, plantUnjournaledCredit, settle } from "../../src/sandbox/Settlement.ts"
import { addTransaction, makeState, nextIds, post } from "../../src/sandbox/State.ts"
import { advance, assertInvariants, deliveriesDone, payout, receiver, sandbox } from "../kit/Sandbox.ts"

const COUNTRIES = ["CM", "CI", "SN", "BJ", "TG"]

const luhn = (digits: string) =>
  [...digits].reverse().reduce((sum, d, i) => {
    const n = Number(d) * (i % 2 === 1 ? 2 : 1)
    return sum + (n > 9 ? n - 9 : n)
  }, 0) % 10 === 0

describe("GET /__sandbox/test-data", () => {
  it.scopedLive("has exactly the agreed shape; every number is a valid mobile of its country; cards are Luhn-valid", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* api.get("/__sandbox/test-data")
      expect(r.status).toBe(200)
      const data = r.json
      expect(Object.keys(data).sort()).toEqual(["cards", "payin", "payout"])
      expect(Object.keys(data.payout).sort()).toEqual([...COUNTRIES].sort())
      expect(Object.keys(data.payin).sort()).toEqual([...COUNTRIES].sort())
      expect(Object.keys(data.cards).sort()).toEqual(["declined", "success"])
      const all: Array<string> = []
      for (const country of COUNTRIES) {
        expect(Object.keys(data.payout[country]).sort()).toEqual(["cancelled", "delayed", "failure", "success"])
        expect(Object.keys(data.payin[country]).sort()).toEqual(["cancelled", "insufficient_funds", "success", "timeout"])
        for (const phone of [...Object.values(data.payout[country]), ...Object.values(data.payin[country])] as Array<string>) {
          expect(phone).toMatch(/^\+\d{8,15}$/)
          const parsed = parsePhoneNumberFromString(phone)
          expect(parsed?.isValid(), phone).toBe(true)
          expect(parsed?.country, phone).toBe(country)
          expect(parsed?.getType(), phone).toBe("MOBILE")
          expect(parsed?.number).toBe(phone)
          all.push(phone)
        }
      }
      expect(new Set(all).size).toBe(all.length)
      expect(data.payout.BJ.success).toMatch(/^\+22901\d{8}$/)
      expect(data.cards.success).not.toBe(data.cards.declined)
      expect(luhn(data.cards.success) && luhn(data.cards.declined)).toBe(true)
    })
  )
})

describe("admin endpoints", () => {
  it.scopedLive("payouts lists every payout with description, phone, status and payout_details", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payoutDelaySeconds: 60 })
      const a = (yield* payout(api, { description: "[tok1] first" })).json.reference
      const b = (yield* payout(api, { description: "[tok2] second", phoneNumber: "+237670000002", payout_details: { row: 2 } })).json.reference
      yield* advance(api, 60)
      const list = (yield* api.get("/__sandbox/payouts")).json.payouts
      expect(list).toHaveLength(2)
      expect(list[0]).toMatchObject({ reference: a, description: "[tok1] first", amount: 1000, currency: "XAF", phone: "+237670000001", operator: "carrier1_cm", status: "completed", payout_details: { seller: "S-1" } })
      expect(list[1]).toMatchObject({ reference: b, status: "failed", payout_details: { row: 2 } })
      expect(Number.isNaN(Date.parse(list[0].created_at))).toBe(false)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("clock: reads and advances virtual time; refuses a negative advance", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const before = Date.parse((yield* api.get("/__sandbox/clock")).json.now)
      const r = yield* advance(api, 3600)
      expect(r.status).toBe(200)
      expect(Date.parse(r.json.now) - before).toBeGreaterThanOrEqual(3_600_000)
      expect((yield* advance(api, -1)).json.errors.seconds).toBeDefined()
    })
  )

  it.scopedLive("the time scale runs the virtual clock faster than real time", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ timeScale: 600 })
      const t0 = Date.parse((yield* api.get("/__sandbox/clock")).json.now)
      yield* Effect.sleep(200)
      const t1 = Date.parse((yield* api.get("/__sandbox/clock")).json.now)
      expect(t1 - t0).toBeGreaterThanOrEqual(100_000)
    })
  )

  it.scopedLive("settle answers what it moved (nothing without pay-ins) and keeps the invariant", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* api.send("POST", "/__sandbox/settle", {})
      expect(r.status).toBe(200)
      expect(r.json).toEqual({ settled: [] })
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("webhook_dup sends an outcome twice (same event id)", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ payoutDelaySeconds: 60, faults: "payout.webhook_dup=1" })
      yield* payout(api, { callback_url: hooks.url })
      yield* advance(api, 60)
      yield* deliveriesDone(api, 2)
      expect(hooks.received).toHaveLength(2)
      expect(hooks.received[0].body).toEqual(hooks.received[1].body)
    })
  )
})

describe("the money invariant", () => {
  it.scopedLive("a planted bug (a credit without a journal entry) is caught", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payoutDelaySeconds: 60 })
      yield* payout(api)
      yield* assertInvariants(api)
      yield* Ref.update(api.state, (state) => plantUnjournaledCredit(state, "XAF", 500))
      const r = (yield* api.get("/__sandbox/invariants")).json
      expect(r.ok).toBe(false)
      expect(r.violations.join("\n")).toMatch(/XAF wallet .* differs from its journal/)
    })
  )

  it("catches a reservation out of step with in-flight payouts, a refund without completion, a malformed entry", () => {
    const [, state] = fund(makeState("test", 0), "XAF", 10_000, 0)
    expect(checkInvariants(state)).toEqual([])
    const [ids, numbered] = nextIds(state, 0)
    const reserved = post(numbered, { kind: "reserve", reference: ids.reference, currency: "XAF", balance: 0, pending: 0, reserved: 100 }, 0)
    expect(checkInvariants(reserved).join("\n")).toMatch(/unknown transaction|reserved 100 differs/)
    const [t, s2] = fund(makeState("two", 0), "XOF", 1_000, 0)
    const refunded = post(s2, { kind: "refund", reference: t.reference, currency: "XOF", balance: 50, pending: 0, reserved: 0 }, 0)
    expect(checkInvariants(refunded).join("\n")).toMatch(/moved balance 1050/)
    expect(entryViolation({ kind: "complete", reference: "x", currency: "XAF", balance: -10, pending: 0, reserved: -9 })).toBeDefined()
    expect(entryViolation({ kind: "reserve", reference: "x", currency: "XAF", balance: 5, pending: 0, reserved: 5 })).toBeDefined()
    expect(entryViolation({ kind: "settle", reference: "x", currency: "XAF", balance: 5, pending: -5, reserved: 0 })).toBeUndefined()
  })

  it("settle moves pending funds (a pay-in) to the balance through the journal", () => {
    const [ids, numbered] = nextIds(makeState("test", 0), 0)
    const [, added] = addTransaction(numbered, {
      ...ids, type: "payin", amount: 1_000, fee: 20, currency: "XAF", status: "completed", statusDescription: "", operator: "carrier1_cm",
      phone: null, customer: null, description: "", details: null, callbackUrl: null, returnUrl: null, cancelUrl: null, createdAt: 0, updatedAt: 0, plan: null
    })
    const credited = post(added, { kind: "payin", reference: ids.reference, currency: "XAF", balance: 0, pending: 980, reserved: 0 }, 0)
    const [settled, state] = settle(credited, 1)
    expect(settled).toEqual([{ currency: "XAF", amount: 980 }])
    expect(state.wallets.XAF).toMatchObject({ balance: 980, pending: 0 })
    expect(checkInvariants(state)).toEqual([])
  })
})

describe("fees and funding", () => {
  it("payout fee: 1% rounded up to a whole unit, minimum 50 XAF/XOF", () => {
    expect(feeFor(DEFAULT_FEES.payout, 1, "XAF")).toBe(50)
    expect(feeFor(DEFAULT_FEES.payout, 5_000, "XOF")).toBe(50)
    expect(feeFor(DEFAULT_FEES.payout, 5_001, "XOF")).toBe(51)
    expect(feeFor(DEFAULT_FEES.payout, 1_000_000, "XAF")).toBe(10_000)
    expect(feeFor(DEFAULT_FEES.payout, 12_345, "NGN")).toBe(200)
  })

  it("parseFund", () => {
    expect(parseFund("XAF=5000000, XOF=2000000")).toEqual(Either.right({ XAF: 5_000_000, XOF: 2_000_000 }))
    expect(parseFund("NGN=10.50")).toEqual(Either.right({ NGN: 10.5 }))
    expect(parseFund("")).toEqual(Either.right({}))
    expect(Either.isLeft(parseFund("XAF"))).toBe(true)
    expect(Either.isLeft(parseFund("ABC=1"))).toBe(true)
    expect(Either.isLeft(parseFund("XAF=1.5"))).toBe(true)
    expect(Either.isLeft(parseFund("XAF=1,000"))).toBe(true)
  })
})
