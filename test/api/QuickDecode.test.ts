/**
 * The client's quick checks of the POST's and the status lookup's answers (src/api/QuickDecode.ts)
 * against their schemas, on hostile JSON: whenever the quick check answers, the schema decodes the
 * same value (same class, same fields, absent keys absent), and the usual answers are answered
 * quickly, so the quick path is really the one used.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import * as fc from "fast-check"
import { quickPayoutResponse, quickStatusResponse } from "../../src/api/QuickDecode.ts"
import { PayoutResponse, StatusResponse } from "../../src/api/Schemas.ts"

const bySchema = { status: Schema.decodeUnknownOption(StatusResponse), payout: Schema.decodeUnknownOption(PayoutResponse) }

const hostile = fc.oneof(
  fc.constantFrom(null, true, false, "", "12", "1e3", " 7", "abc", 0, -0, 1.5, -3, {}, [], ["a"], { a: 1 }, { __proto__: null }),
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer()
)
const or = <A>(valid: fc.Arbitrary<A>) => fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: hostile })
/** A key that may be missing, or hold anything. */
const field = <A>(valid: fc.Arbitrary<A>) => fc.option(or(valid), { freq: 6, nil: undefined })
const text = fc.string({ maxLength: 12 })
const number = fc.oneof(fc.integer({ min: 0, max: 10 ** 9 }), fc.double({ min: 0, max: 1e9, noNaN: true }))
const nullable = <A>(a: fc.Arbitrary<A>) => fc.option(a, { freq: 4, nil: null })
const details = fc.oneof(
  fc.dictionary(text, fc.oneof(text, fc.integer(), fc.constant(null))),
  fc.constantFrom(JSON.parse('{"__proto__":{"a":1}}'), JSON.parse('{"a":1,"__proto__":"x"}'))
)
const customer = fc.record({ name: or(text), phone: or(text), email: or(text), extra: hostile }, { requiredKeys: [] })

/** Drops the keys whose value is undefined: JSON has no undefined. */
const json = (record: Record<string, unknown>) => JSON.parse(JSON.stringify(record)) as unknown

const statusRecord = fc.record({
  reference: field(text),
  external_transaction_id: field(nullable(text)),
  amount: field(number),
  currency: field(text),
  type: field(text),
  operator: field(nullable(text)),
  status: field(text),
  status_description: field(nullable(text)),
  fee: field(number),
  created_at: field(text),
  updated_at: field(text),
  payment_details: field(nullable(details)),
  customer: field(nullable(customer)),
  unknown_extra: field(hostile)
})
const statusAnswer = fc.record({ success: field(fc.boolean()), message: field(text), data: or(statusRecord) }).map(json)
const payoutAnswer = fc.record({
  reference: field(text),
  amount: field(number),
  currency: field(text),
  status: field(text),
  operator: field(text),
  message: field(text),
  phoneNumber: field(text),
  fee: field(number),
  estimated_delivery: field(text),
  extra: field(hostile)
}).map(json)

const sameAsSchema = <A>(quick: (json: unknown) => A | undefined, schema: (json: unknown) => Option.Option<A>) => (answer: unknown) => {
  const fast = quick(answer)
  if (fast === undefined) return
  const slow = schema(answer)
  expect(Option.isSome(slow)).toBe(true)
  expect(fast).toStrictEqual(Option.getOrThrow(slow))
}

describe("the client's quick decode of a payout's answers", () => {
  it.each([
    ["a status lookup", () => fc.assert(fc.property(statusAnswer, sameAsSchema(quickStatusResponse, bySchema.status)), { numRuns: 3_000 })],
    ["a payout POST", () => fc.assert(fc.property(payoutAnswer, sameAsSchema(quickPayoutResponse, bySchema.payout)), { numRuns: 3_000 })]
  ])("answers %s only as its schema does", (_, check) => check())

  it("answers the usual answers itself", () => {
    const status = {
      success: true,
      message: "ok",
      data: {
        reference: "PAY-1", external_transaction_id: null, amount: 5000, currency: "XAF", type: "payout", operator: "MTN_MOMO_CMR",
        status: "COMPLETED", status_description: "done", created_at: "2026-11-24T00:00:00Z", updated_at: "2026-11-24T00:00:01Z",
        payment_details: { token: "t" }, customer: { name: "A", phone: "+237670000000", email: "a@example.com" }
      }
    }
    const quick = quickStatusResponse(status)
    expect(quick).toBeInstanceOf(StatusResponse)
    expect(quick?.data.fee).toBe(0)
    expect(quick).toStrictEqual(Option.getOrThrow(bySchema.status(status)))
    const payout = { reference: "PAY-1", amount: 5000, currency: "XAF", status: "PENDING", fee: 50 }
    expect(quickPayoutResponse(payout)).toBeInstanceOf(PayoutResponse)
    expect(quickPayoutResponse(payout)).toStrictEqual(Option.getOrThrow(bySchema.payout(payout)))
  })

  it("leaves what only the schema can word or tolerate to the schema", () => {
    // A number sent as a string is tolerated by the schema alone; a missing reference is refused by it.
    expect(quickPayoutResponse({ reference: "PAY-1", status: "PENDING", amount: "5000" })).toBeUndefined()
    expect(quickPayoutResponse({ status: "PENDING" })).toBeUndefined()
    expect(quickStatusResponse({ success: true, data: [] })).toBeUndefined()
    expect(quickStatusResponse(null)).toBeUndefined()
  })
})
