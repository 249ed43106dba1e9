import { describe, expect, it } from "@effect/vitest"
import { describe as describeRow, HISTORY_MS, plan, scanFromDate, type UnknownRow } from "../../src/batch/ReconcilePlan.ts"

const MIN = 60_000
const row = (over: Partial<UnknownRow> = {}): UnknownRow => ({
  idx: 0,
  token: "TOKA",
  amountMinor: 5000,
  currency: "XAF",
  intentAt: 1_000 * MIN,
  unknownAt: 1_000 * MIN + 30_000,
  emptyScans: 0,
  ...over
})
const listed = (token: string, amount = 5000, reference = `TXN${token}`, currency = "XAF") => ({
  reference,
  description: describeRow(token, "Payout seller"),
  amount,
  currency,
  status: "pending"
})
const opts = { now: 1_001 * MIN, graceMs: 10 * MIN, historyMs: HISTORY_MS }

describe("reconcile plan", () => {
  it("adopts the reference of exactly one payout whose description starts with the token", () => {
    const [d] = plan([row()], [listed("TOKA"), listed("TOKB")], [], opts)
    expect(d).toMatchObject({ _tag: "Adopt", payout: { reference: "TXNTOKA" } })
  })

  it("raises an alarm, never a resend, when several payouts carry the token", () => {
    const [d] = plan([row()], [listed("TOKA", 5000, "R1"), listed("TOKA", 5000, "R2")], [], opts)
    expect(d).toEqual({ _tag: "Alarm", idx: 0, references: ["R1", "R2"] })
  })

  it("ignores a token match with another amount or currency, and a token not at the start", () => {
    const other = [
      listed("TOKA", 5001),
      listed("TOKA", 5000, "R9", "XOF"),
      { reference: "R3", description: "Payout [TOKA] later", amount: 5000, currency: "XAF", status: "pending" }
    ]
    const [d] = plan([row()], other, [], opts)
    expect(d._tag).toBe("Wait")
  })

  it("waits while the listing may lag: nothing listed, grace not over, no later payout visible", () => {
    const [d] = plan([row({ emptyScans: 3 })], [], [{ reference: "LATER", intentAt: row().unknownAt + 1 }], opts)
    expect(d._tag).toBe("Wait")
  })

  it("resends once a payout of ours submitted after the ambiguous one is listed", () => {
    const later = { reference: "LATER", intentAt: row().unknownAt + 1 }
    const [d] = plan([row()], [listed("TOKZ", 5000, "LATER")], [later], opts)
    expect(d._tag).toBe("Resend")
  })

  it("does not count a listed payout whose intent came before the ambiguous POST ended", () => {
    const earlier = { reference: "EARLY", intentAt: row().intentAt }
    const [d] = plan([row()], [listed("TOKZ", 5000, "EARLY")], [earlier], opts)
    expect(d._tag).toBe("Wait")
  })

  it("resends after the grace only on a second empty scan", () => {
    const late = { ...opts, now: row().intentAt + 11 * MIN }
    expect(plan([row({ emptyScans: 0 })], [], [], late)[0]._tag).toBe("Wait")
    expect(plan([row({ emptyScans: 1 })], [], [], late)[0]._tag).toBe("Resend")
  })

  it("never resends an intent older than the 90-day history", () => {
    const [d] = plan([row({ emptyScans: 5 })], [], [], { ...opts, now: row().intentAt + HISTORY_MS + 1 })
    expect(d._tag).toBe("Expired")
  })

  it("scans from the earliest intent's UTC day minus one", () => {
    expect(scanFromDate(Date.UTC(2026, 10, 21, 0, 5))).toBe("2026-11-20")
  })
})
