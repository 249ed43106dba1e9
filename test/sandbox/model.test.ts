import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { DEFAULT_FEES, feeFor } from "../../src/sandbox/Fees.ts"
import { checkInvariants } from "../../src/sandbox/Invariants.ts"
import { advanceDue, createPayout, refund } from "../../src/sandbox/Payouts.ts"
import { fund } from "../../src/sandbox/Settlement.ts"
import { makeState, transactionsOf } from "../../src/sandbox/State.ts"
import { assertInvariants, payout, sandbox, wallet } from "../kit/Sandbox.ts"

const customer = { name: "A", phone: "+237670000001", email: "a@b.co" }

const op = fc.oneof(
  fc.record({ kind: fc.constant("fund" as const), currency: fc.constantFrom("XAF", "XOF"), amount: fc.integer({ min: 1, max: 50_000 }) }),
  fc.record({
    kind: fc.constant("payout" as const),
    currency: fc.constantFrom("XAF", "XOF"),
    amount: fc.integer({ min: 1, max: 30_000 }),
    delay: fc.integer({ min: 0, max: 100 }),
    outcome: fc.constantFrom("completed" as const, "failed" as const, "cancelled" as const)
  }),
  fc.record({ kind: fc.constant("advance" as const), by: fc.integer({ min: 0, max: 120 }) }),
  fc.record({ kind: fc.constant("refund" as const), pick: fc.nat() })
)

describe("state model", () => {
  it("any sequence of funding, payouts, transitions and refunds keeps the money invariant", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        let state = makeState("prop", 0)
        let now = 0
        for (const o of ops) {
          if (o.kind === "fund") state = fund(state, o.currency, o.amount, now)[1]
          else if (o.kind === "advance") state = advanceDue(state, (now += o.by))[1]
          else if (o.kind === "refund") {
            const refs = transactionsOf(state).map((t) => t.reference)
            if (refs.length > 0) state = refund(state, refs[o.pick % refs.length], now)[1]
          } else {
            const fee = feeFor(DEFAULT_FEES.payout, o.amount, o.currency)
            const before = state.wallets[o.currency].balance - state.wallets[o.currency].reserved
            const [result, next] = createPayout(
              state,
              { amount: o.amount, fee, currency: o.currency, operator: "carrier1_cm", phone: "+237670000001", customer, description: "p", details: null, callbackUrl: "http://x", returnUrl: "http://x", cancelUrl: "http://x" },
              { processingAt: now + o.delay / 2, finalAt: now + o.delay, outcome: o.outcome, description: o.outcome },
              now
            )
            state = next
            expect(Either.isRight(result)).toBe(before >= o.amount + fee)
          }
          expect(checkInvariants(state)).toEqual([])
        }
      }),
      { numRuns: 200 }
    )
  })
})

describe("concurrent payouts", () => {
  it.scopedLive("never overdraw: exactly the payouts that fit are accepted", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ fund: { XAF: 101_000 }, payoutDelaySeconds: 3600 })
      const replies = yield* Effect.forEach(Array.from({ length: 30 }), () => payout(api, { amount: 10_000 }), { concurrency: 30 })
      expect(replies.filter((r) => r.status === 200)).toHaveLength(10)
      expect(replies.filter((r) => r.status === 422).every((r) => r.json.errors.amount !== undefined)).toBe(true)
      expect(yield* wallet(api, "XAF")).toMatchObject({ reserved_balance: 101_000, available_balance: 0 })
      yield* assertInvariants(api)
    })
  )
})
