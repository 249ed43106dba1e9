import { describe, expect, it } from "@effect/vitest"
import { estimateFee, preflight } from "../../src/batch/Preflight.ts"
import { exitCodeFor } from "../../src/batch/ExitCode.ts"

const rows = [
  { idx: 0, currency: "XAF", amountMinor: 10_000 },
  { idx: 1, currency: "XAF", amountMinor: 20_000 },
  { idx: 2, currency: "XOF", amountMinor: 5_000 },
  { idx: 3, currency: "XAF", amountMinor: 1_000 }
]

describe("balance preflight", () => {
  it("estimates fees as a percentage rounded up", () => {
    expect(estimateFee(10_001, 2)).toBe(201)
  })

  it("passes when every currency's rows plus fee estimate fit", () => {
    const r = preflight(rows, new Map([["XAF", 31_620], ["XOF", 5_100]]), 2, "abort")
    expect(r.ok).toBe(true)
    expect(r.checks.find((c) => c.currency === "XAF")).toMatchObject({ rows: 3, amountMinor: 31_000, feeEstimateMinor: 620 })
  })

  it("abort refuses and skips nothing when one currency falls short", () => {
    const r = preflight(rows, new Map([["XAF", 31_619], ["XOF", 5_100]]), 2, "abort")
    expect(r.ok).toBe(false)
    expect(r.checks.find((c) => c.currency === "XAF")?.fits).toBe(false)
    expect(r.skip).toEqual([])
  })

  it("partial pays rows in file order while they fit and skips the rest", () => {
    const r = preflight(rows, new Map([["XAF", 40_000], ["XOF", 0]]), 2, "partial")
    expect(r.skip).toEqual([2])
    const tight = preflight(rows, new Map([["XAF", 11_000], ["XOF", 5_100]]), 2, "partial")
    // row 3 alone would fit after row 0, but rows are paid in file order while they fit
    expect(tight.skip).toEqual([1, 3])
  })

  it("a missing wallet counts as zero available", () => {
    expect(preflight(rows, new Map(), 2, "abort").ok).toBe(false)
  })
})

describe("exit codes", () => {
  it("0 when every row completed, 1 when all final with some not completed, 3 when incomplete", () => {
    expect(exitCodeFor({ completed: 3 }, false)).toBe(0)
    expect(exitCodeFor({ completed: 3, failed: 1, skipped: 1 }, false)).toBe(1)
    expect(exitCodeFor({ completed: 3, pending: 1 }, false)).toBe(3)
    expect(exitCodeFor({ completed: 3, unknown: 1 }, false)).toBe(3)
    expect(exitCodeFor({ completed: 3 }, true)).toBe(3)
  })
})
