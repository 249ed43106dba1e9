/**
 * output/AlreadyPaid.ts on its own: which rows are already paid by another, and the summary with them
 * taken out of its counts and totals (refunded rows and fee estimates included) and listed apart.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, DateTime, Effect } from "effect"
import { DEFAULT_FEE_ESTIMATE } from "../../src/domain/FeeEstimate.ts"
import { describeAlreadyPaid, isAlreadyPaid, makeAlreadyPaidTally, withAlreadyPaid } from "../../src/output/AlreadyPaid.ts"
import type { Summary } from "../../src/output/SummaryFile.ts"
import type { Row } from "../../src/store/Model.ts"
import { MirrorStore } from "../../src/store/Sql/Mirror.ts"
import { scopedServices } from "./parts.ts"

const at = DateTime.unsafeMake("2026-11-25T10:00:00Z")

type Over = Partial<Omit<Row, "amountMinor" | "feeMinor">> & { readonly amountMinor?: number; readonly feeMinor?: number | null }

/** No listed payout is asked of it here: the rows were sent, or the batch was done before. */
const noMirror = Effect.map(scopedServices, ({ services }) => {
  const mirror = Context.get(services, MirrorStore)
  return MirrorStore.make({ ...mirror, mirrorByReferences: () => Effect.succeed([]) })
})

const row = (over: Over): Row =>
  ({
    idx: 0, line: 2, rowId: "A", currency: "XAF", amountMinor: 5000, state: "completed", reference: "TXN1", feeMinor: 50,
    attempts: 1, finalAt: at, submittedAt: at, ...over
  }) as Row

const summary: Summary = {
  batch_id: "b1",
  file: "copy.csv",
  outcome: "finished",
  counts: { completed: 3, refunded: 1, failed: 1 },
  totals: { XAF: { rows: 5, amount: "23000", completed_amount: "15000", fees: "200", fees_estimated: "500" } },
  stuck: [],
  exit_code: 1
}

describe("already paid by another", () => {
  it("a row never sent yet holding a reference, or any paid row of a batch done before the run", () => {
    expect(isAlreadyPaid(row({ attempts: 0 }), undefined)).toBe(true)
    expect(isAlreadyPaid(row({ attempts: 1 }), undefined)).toBe(false)
    expect(isAlreadyPaid(row({ attempts: 0, state: "pending" }), undefined)).toBe(false)
    expect(isAlreadyPaid(row({ attempts: 0, state: "failed" }), undefined)).toBe(false)
    expect(isAlreadyPaid(row({ attempts: 1, state: "refunded" }), { batchId: "b1", file: "week.csv" })).toBe(true)
    expect(isAlreadyPaid(row({ attempts: 1, state: "failed" }), { batchId: "b1", file: "week.csv" })).toBe(false)
  })

  it.scoped("the summary counts them apart, out of completed and the totals, and lists them with their days", () =>
    Effect.gen(function* () {
      const tally = makeAlreadyPaidTally({ batchId: "b1", file: "week.csv" }, DEFAULT_FEE_ESTIMATE)
      tally.add(row({ idx: 0, amountMinor: 5000, feeMinor: 50 }))
      tally.add(row({ idx: 1, amountMinor: 5000, feeMinor: 50, finalAt: DateTime.unsafeMake("2026-11-26T23:00:00Z") }))
      tally.add(row({ idx: 2, amountMinor: 3000, feeMinor: 50, state: "refunded" }))
      tally.add(row({ idx: 3, amountMinor: 3000, state: "failed", feeMinor: null }))
      const figures = yield* tally.result("acct" as never)
      const out = withAlreadyPaid(summary, figures)
      expect(out.counts).toEqual({ completed: 1, failed: 1, already_paid: 3 })
      // 2% with a minimum of 50 per row: 100 + 100 + 60 estimated for the three rows taken out.
      expect(out.totals.XAF).toEqual({ rows: 2, amount: "10000", completed_amount: "5000", fees: "50", fees_estimated: "240" })
      expect(out.already_paid).toEqual({
        rows: 3,
        totals: { XAF: { rows: 3, amount: "13000", fees: "150" } },
        first_day: "2026-11-25",
        last_day: "2026-11-26",
        earlier_run: { batch_id: "b1", file: "week.csv" }
      })
      expect(describeAlreadyPaid(out.already_paid!, (t) => t.replace(/\B(?=(\d{3})+$)/g, ","))).toBe(
        "3 row(s) (13,000 XAF) already paid by batch b1 (week.csv) between 2026-11-25 and 2026-11-26: not paid again"
      )
      expect(withAlreadyPaid(summary, yield* makeAlreadyPaidTally(undefined, DEFAULT_FEE_ESTIMATE).result("acct" as never))).toBe(summary)
    }).pipe(Effect.provideServiceEffect(MirrorStore, noMirror))
  )
})
