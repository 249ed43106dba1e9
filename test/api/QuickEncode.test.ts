/**
 * The client's quick encode of a payout's body (src/api/QuickEncode.ts) against the schema's encode,
 * on hostile field values: whenever the quick path answers, the schema encodes the same body (same
 * keys, same order, fresh objects), and the usual body is encoded quickly.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import { quickPayoutBody } from "../../src/api/QuickEncode.ts"
import { Customer, PayoutRequest } from "../../src/api/Schemas.ts"

const bySchema = (body: PayoutRequest) => Effect.runSyncExit(Schema.encode(Schema.Struct(PayoutRequest.fields))(body))

const hostile = fc.constantFrom<unknown>(null, undefined, 1, "", Number.NaN, [], {}, ["a"], Object.create(null), new Map(), JSON.parse('{"__proto__":{"a":1}}'))
const or = <A>(valid: fc.Arbitrary<A>) => fc.oneof({ weight: 20, arbitrary: valid }, { weight: 1, arbitrary: hostile })
const text = or(fc.string({ maxLength: 8 }))
const customer = fc.oneof(
  { weight: 20, arbitrary: fc.record({ name: text, phone: text, email: text }).map((c) => new Customer(c as never, true)) },
  { weight: 1, arbitrary: fc.record({ name: fc.string(), phone: fc.string(), email: fc.string() }) },
  { weight: 1, arbitrary: hostile }
)
const body = fc.record({
  amount: or(fc.oneof(fc.integer(), fc.double())),
  currency: text, operator: text, phoneNumber: text, return_url: text, cancel_url: text, callback_url: text, description: text,
  customer,
  payout_details: or(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.integer())).map((d) => ({ ...d })))
}, { requiredKeys: ["amount", "currency", "operator", "phoneNumber", "return_url", "cancel_url", "callback_url", "description", "customer"] })
  .map((fields) => new PayoutRequest(fields as never, true))

describe("the client's quick encode of a payout's body", () => {
  it("answers only as the schema's encode does", () => {
    fc.assert(
      fc.property(body, (request) => {
        const quick = quickPayoutBody(request)
        if (quick === undefined) return
        const slow = bySchema(request)
        expect(Exit.isSuccess(slow)).toBe(true)
        if (Exit.isSuccess(slow)) {
          expect(quick).toStrictEqual(slow.value)
          expect(JSON.stringify(quick)).toBe(JSON.stringify(slow.value))
        }
      }),
      { numRuns: 3_000 }
    )
  })

  it("encodes the usual body itself", () => {
    const request = new PayoutRequest({
      amount: 5000, currency: "XAF", operator: "MTN_MOMO_CMR", phoneNumber: "+237670000000", return_url: "r", cancel_url: "c",
      callback_url: "http://localhost/payouts/webhooks", description: "Payout 1 [t]", customer: new Customer({ name: "A", phone: "+237670000000", email: "a@example.com" }),
      payout_details: { token: "t", id: "1" }
    })
    const quick = quickPayoutBody(request)
    expect(quick).toBeDefined()
    expect(quick?.payout_details).not.toBe(request.payout_details)
    expect(quick).toStrictEqual(Effect.runSync(Schema.encode(Schema.Struct(PayoutRequest.fields))(request)))
  })
})
