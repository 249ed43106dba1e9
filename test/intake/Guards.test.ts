/** The guards' rules, the flag syntax, and the runner's book over a real store (claimed rows count once). */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, TestClock } from "effect"
import { breach, count, emptyFigures, type GuardSettings, makeGuardBook, NO_GUARDS } from "../../src/intake/Guards.ts"
import { parsePerCurrency } from "../../src/cli/SafeguardOptions.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { handlesOf } from "../kit/Store.ts"
import { ACCOUNT, newBatch, rowInput, tempDbPath } from "../store/fixtures.ts"
import { BatchId, MinorUnits } from "../../src/domain/Ids.ts"

/** A store on a temp file: the port the test writes with, and the narrow services the book reads. */
const scopedStore = Effect.gen(function* () {
  const services = yield* Layer.build(SqliteStateStore.layer({ filename: yield* tempDbPath }))
  return { store: handlesOf(services), services }
})

const guards = (over: Partial<GuardSettings>): GuardSettings => ({ ...NO_GUARDS, ...over })
const row = (amountMinor: number, phone = "+237670000001", currency = "XAF") => ({ currency, amountMinor, phone })

describe("guard rules", () => {
  it("names the first guard broken, on top of what already counts", () => {
    const g = guards({ maxPayout: { XAF: 10_000 }, maxBatchTotal: { XAF: 25_000 }, dailyCap: { XAF: 40_000 }, phoneDailyLimit: 2 })
    const figures = emptyFigures()
    expect(breach(g, figures, row(10_001))?.guard).toBe("max-payout")
    expect(breach(g, figures, row(10_000))).toBeUndefined()
    count(figures, row(10_000))
    count(figures, row(10_000, "+237670000002"))
    expect(breach(g, figures, row(6_000, "+237670000003"))?.reason).toBe(
      "over --max-batch-total: this row would bring the batch to 26000 XAF, above the limit of 25000 XAF"
    )
    figures.day.set("XAF", 38_000)
    expect(breach(g, figures, row(3_000, "+237670000003"))?.guard).toBe("daily-cap")
    count(figures, row(1_000))
    expect(breach(g, figures, row(500))?.guard).toBe("phone-daily-limit")
    // Another currency has no limits set: nothing to break.
    expect(breach(g, figures, row(10_000_000, "+237670000009", "XOF"))).toBeUndefined()
  })

  it("reads CUR:AMOUNT lists in major units, strictly", () => {
    expect(parsePerCurrency("XAF:500000, xof:250000,USD:12.50")).toEqual(Either.right({ XAF: 500_000, XOF: 250_000, USD: 1_250 }))
    for (const bad of ["XAF:1.5", "XAF", "XAF=100", "ZZZ:1", "XAF:1,XAF:2", "XAF:1 000", "XAF:-5", "XAF:0", ""]) {
      expect(Either.isLeft(parsePerCurrency(bad)), bad).toBe(true)
    }
  })
})

describe("the runner's guard book", () => {
  it.scoped("counts claimed rows once, lets rows go while the day fits, sees another batch's payouts within a second", () =>
    Effect.gen(function* () {
      const { store, services } = yield* scopedStore
      const phone = (i: number) => `+2376700001${String(i).padStart(2, "0")}`
      yield* store.createBatch(newBatch("mine"), Array.from({ length: 6 }, (_, i) => rowInput(i, { amountMinor: MinorUnits.make(1_000), phone: phone(i), rowId: `m-${i}` })))
      yield* store.createBatch(newBatch("other"), Array.from({ length: 3 }, (_, i) => rowInput(i, { amountMinor: MinorUnits.make(1_000), phone: phone(10 + i), rowId: `o-${i}` })))
      const book = yield* makeGuardBook(ACCOUNT, BatchId.make("mine"), guards({ dailyCap: { XAF: 5_000 } })).pipe(Effect.provide(services))

      const first = yield* store.batch(ACCOUNT, BatchId.make("mine")).claimRows({ idxs: [0, 1, 2] })
      yield* book.claimed(first)
      for (const r of first) expect(yield* book.admit(r)).toBeUndefined()
      // Admitting again (a resend of a request that never left) does not count twice.
      expect(yield* book.admit(first[0])).toBeUndefined()

      // Another batch sends two rows: within the second the book may not see them yet, after it must.
      yield* store.batch(ACCOUNT, BatchId.make("other")).claimRows({ idxs: [0, 1] })
      yield* TestClock.adjust("2 seconds")
      const next = yield* store.batch(ACCOUNT, BatchId.make("mine")).claimRows({ idxs: [3, 4] })
      yield* book.claimed(next)
      expect(yield* book.admit(next[0])).toEqual(expect.objectContaining({ guard: "daily-cap" }))
      yield* book.drop(next[0].idx)
      expect((yield* book.admit(next[1]))?.guard).toBe("daily-cap")
    })
  )

  it.scoped("the per-phone limit sees the phone's payouts in other batches", () =>
    Effect.gen(function* () {
      const { store, services } = yield* scopedStore
      const phone = "+237670000777"
      yield* store.createBatch(newBatch("before"), [rowInput(0, { phone, rowId: "b-0" }), rowInput(1, { phone, rowId: "b-1" })])
      yield* store.batch(ACCOUNT, BatchId.make("before")).claimRows({ idxs: [0, 1] })
      yield* store.createBatch(newBatch("now"), [rowInput(0, { phone, rowId: "n-0" }), rowInput(1, { phone: "+237670000778", rowId: "n-1" })])
      const book = yield* makeGuardBook(ACCOUNT, BatchId.make("now"), guards({ phoneDailyLimit: 2 })).pipe(Effect.provide(services))
      const rows = yield* store.batch(ACCOUNT, BatchId.make("now")).claimRows({ idxs: [0, 1] })
      yield* book.claimed(rows)
      expect((yield* book.admit(rows[0]))?.guard).toBe("phone-daily-limit")
      expect(yield* book.admit(rows[1])).toBeUndefined()
    })
  )
})
