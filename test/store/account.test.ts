import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { ACCOUNT, ADAPTERS, newBatch, rowInputs, scopedStoreOn } from "./fixtures.ts"
import { AccountId, BatchId } from "../../src/domain/Ids.ts"

describe.each(ADAPTERS)("account-wide records ($name)", (adapter) => {
  it.scoped("a halt holds until lifted; a second halt keeps the first", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      expect(yield* store.account(ACCOUNT).activeHalt()).toEqual(Option.none())
      expect(yield* store.account(ACCOUNT).haltAccount({ at: 1, by: "ana", reason: "wrong file" })).toBe(true)
      expect(yield* store.account(ACCOUNT).haltAccount({ at: 2, by: "bo", reason: "again" })).toBe(false)
      expect(yield* store.account(ACCOUNT).activeHalt()).toEqual(Option.some({ at: 1, by: "ana", reason: "wrong file" }))
      expect(yield* store.account(AccountId.make("another-account")).activeHalt()).toEqual(Option.none())
      expect(yield* store.account(ACCOUNT).liftHalt("ana", 3)).toBe(1)
      expect(yield* store.account(ACCOUNT).activeHalt()).toEqual(Option.none())
      expect(yield* store.account(ACCOUNT).liftHalt("ana", 4)).toBe(0)
    })
  )

  it.scoped("an approval records who, when and what", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(1))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).recordApproval({ by: "ana", at: 5_000, what: '{"XAF":"1000"}' })
      const batch = Option.getOrThrow(yield* store.batch(ACCOUNT, BatchId.make("b1")).getBatch())
      expect([batch.approvedBy, batch.approvedWhat]).toEqual(["ana", '{"XAF":"1000"}'])
      expect((yield* Effect.flip(store.batch(ACCOUNT, BatchId.make("nope")).recordApproval({ by: "a", at: 1, what: "{}" }))).reason).toBe("NotFound")
    })
  )

  it.scoped("sent totals and payouts per phone count only rows sent (or maybe sent) since the moment, every batch", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* store.createBatch(newBatch("b1"), rowInputs(4))
      yield* store.createBatch(newBatch("b2"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ idxs: [0, 1] })
      yield* TestClock.adjust("10 seconds")
      yield* store.batch(ACCOUNT, BatchId.make("b1")).claimRows({ idxs: [2] })
      yield* store.batch(ACCOUNT, BatchId.make("b2")).claimRows({ idxs: [0] })
      yield* store.batch(ACCOUNT, BatchId.make("b2")).recordTransition({ idx: 0, from: ["submitting"], to: "failed", source: "response" })
      const all = yield* store.account(ACCOUNT).sentTotalsSince(0)
      const rows = rowInputs(4)
      expect(all).toEqual([{ currency: rows[0].currency, rows: 3, amountMinor: rows.slice(0, 3).reduce((n, r) => n + (r.amountMinor ?? 0), 0) }])
      expect((yield* store.account(ACCOUNT).sentTotalsSince(10_000))[0].rows).toBe(1)
      const phones = yield* store.account(ACCOUNT).phonePayoutsSince([rows[0].phone, rows[3].phone], 0)
      expect(phones.find((p) => p.phone === rows[0].phone)?.payouts).toBe(1)
      expect(phones.find((p) => p.phone === rows[3].phone)).toBeUndefined()
    })
  )

  it.scoped("listedRows: a batch's rows in a state whose token a mirrored payout carries, in file order", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const rows = rowInputs(5)
      yield* store.createBatch(newBatch("b1"), rows)
      const b1 = store.batch(ACCOUNT, BatchId.make("b1"))
      expect(yield* b1.listedRows("validated")).toEqual([])
      const payout = (reference: string, token: string | null) => ({
        reference, token, description: token === null ? "no token" : `[${token}] pay`, amountMinor: 100, currency: "XAF",
        status: "completed", feeMinor: null, createdAt: null
      })
      // Rows 3 and 1 are listed (row 3 twice), an unrelated payout and one without a token are not rows'.
      yield* store.account(ACCOUNT).saveDayReads([{
        day: "2026-11-20",
        payouts: [payout("r-3a", rows[3].token), payout("r-1", rows[1].token), payout("r-x", "tk_other"), payout("r-3b", rows[3].token), payout("r-none", null)],
        hash: "h", maxTotal: 5, closeIfSame: false, at: 1
      }])
      expect(yield* b1.listedRows("validated")).toEqual([1, 3])
      // Only rows in the state asked for; another account's mirror is not this one's.
      yield* b1.claimRows({ idxs: [1] })
      expect(yield* b1.listedRows("validated")).toEqual([3])
      expect(yield* b1.listedRows("submitting")).toEqual([1])
      expect(yield* store.batch(AccountId.make("another-account"), BatchId.make("b1")).listedRows("validated")).toEqual([])
    })
  )
})
