import { Command as Process } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import fc from "fast-check"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { preflight } from "../../src/run/Preflight.ts"
import { DEFAULT_FEE_ESTIMATE, estimateFee, parseFeeEstimate } from "../../src/domain/FeeEstimate.ts"
import { exitCodeFor } from "../../src/run/ExitCode.ts"
import { DEFAULT_FEES, feeFor } from "../../src/sandbox/Fees.ts"
import { ordinaryPhone, readLedger, run, writeCsv } from "./support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

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

describe("the fee estimate rule P%[,min=M]", () => {
  it("parses a percentage and a minimum in minor units; a bad rule says what a rule is", () => {
    expect(parseFeeEstimate("2%,min=50")).toEqual(Either.right({ percent: 2, minimumMinor: 50 }))
    expect(parseFeeEstimate(" 1.5 % , min = 100 ")).toEqual(Either.right({ percent: 1.5, minimumMinor: 100 }))
    expect(parseFeeEstimate("3%")).toEqual(Either.right({ percent: 3, minimumMinor: 0 }))
    for (const bad of ["2", "abc", "", "2%,min=-5", "2%,min=1.5", "2%,max=50", "-1%", "2%%", "2%,min=50,min=60"]) {
      expect(Either.flip(parseFeeEstimate(bad)).pipe(Either.getOrThrow)).toContain("is not a rule P%[,min=M]")
    }
    expect(Either.flip(parseFeeEstimate("150%")).pipe(Either.getOrThrow)).toContain("between 0 and 100")
  })

  it("estimates max(P% rounded up, M) per payout, in integers", () => {
    expect(estimateFee(1_000, DEFAULT_FEE_ESTIMATE)).toBe(50)
    expect(estimateFee(10_001, DEFAULT_FEE_ESTIMATE)).toBe(201)
    expect(estimateFee(1_000, { percent: 1.1, minimumMinor: 0 })).toBe(11)
    expect(estimateFee(2_500, { percent: 0, minimumMinor: 0 })).toBe(0)
  })

  it("the default covers the sandbox's own payout fee for every XAF and XOF amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000_000 }), fc.constantFrom("XAF", "XOF"), (amount, currency) => {
        expect(estimateFee(amount, DEFAULT_FEE_ESTIMATE)).toBeGreaterThanOrEqual(feeFor(DEFAULT_FEES.payout, amount, currency))
      }),
      { numRuns: 5000 }
    )
  })

  // Issue 12 item 9: 300 rows of about 1,000 XAF pay 15,000 XAF in fees (the 50 XAF minimum each); a
  // flat 2% estimated about 6,900, the preflight passed, and the last rows were skipped mid-run.
  const small = Array.from({ length: 300 }, (_, i) => ({ id: `F${i}`, amount: String(1_000 + i), phone: ordinaryPhone(i) }))
  const amounts = 300 * 1_000 + (299 * 300) / 2
  const fees = 300 * 50

  it.scopedLive("300 small rows: a wallet one franc short of amounts + minimum fees is refused before any payout", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ fund: { XAF: amounts + fees - 1 } })
      const dir = tempDir()
      const result = yield* run(sandbox, { file: writeCsv(dir, "small.csv", small), state: join(dir, "state.db"), settings: { concurrency: 16 } })
      expect(result.exitCode).toBe(2)
      expect(yield* admin(sandbox).payouts).toEqual([])
    })
  )

  it.scopedLive("300 small rows: a wallet of exactly amounts + fees pays every row, none skipped mid-run", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ fund: { XAF: amounts + fees } })
      const dir = tempDir()
      const result = yield* run(sandbox, { file: writeCsv(dir, "small.csv", small), state: join(dir, "state.db"), settings: { concurrency: 16 } })
      expect(readLedger(join(dir, "small.ledger.csv")).filter((r) => r.status !== "completed")).toEqual([])
      expect(result.exitCode).toBe(0)
      const summary = JSON.parse(readFileSync(join(dir, "small.summary.json"), "utf8"))
      expect(summary.totals.XAF).toMatchObject({ rows: 300, amount: String(amounts), fees: String(fees), fees_estimated: String(fees) })
    })
  )

  it.live("--fee-estimate with a bad rule is a usage error naming the flag (exit 2)", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const file = writeCsv(dir, "one.csv", small.slice(0, 1))
      const root = fileURLToPath(new URL("../..", import.meta.url))
      const env = { PAYOUTS_BASE_URL: "", PAYOUTS_API_KEY: "", PAYOUTS_API_SECRET: "", PAYOUTS_STATE: join(dir, "state.db"), NO_COLOR: "1" }
      const proc = yield* Process.start(
        Process.make("node", "bin/payouts.js", "validate", file, "--sandbox", "--fee-estimate", "2%,minimum=50").pipe(Process.workingDirectory(root), Process.env(env))
      )
      const [stderr, code] = yield* Effect.all([proc.stderr.pipe(Stream.decodeText(), Stream.mkString), proc.exitCode], { concurrency: "unbounded" })
      expect(Number(code), stderr).toBe(2)
      expect(stderr).toContain(`--fee-estimate: "2%,minimum=50" is not a rule P%[,min=M]`)
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))
  )
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
