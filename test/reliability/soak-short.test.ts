/**
 * The crash-restart soak, short (issue 6): 3 SIGKILL rounds of a real `payouts run` process against a
 * sandbox with faults on, then a run to completion. Replay a failure with SOAK_SEED=<seed>, or at
 * full size: npx tsx scripts/soak.ts --seed <seed>.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { formatResult, runSoak } from "../../scripts/soak.ts"

const seed = Number(process.env.SOAK_SEED ?? 7_2026)

describe("crash-restart soak (short)", () => {
  it.live(
    `3 SIGKILL rounds (each at a payout's commit) with faults on: duplicates=0 lost=0 mismatched=0, secret in no output (seed ${seed})`,
    () =>
      Effect.gen(function* () {
        const result = yield* Effect.promise(() => runSoak({ rounds: 3, rows: 150, seed, keep: true, maxKillDelayMs: 3_000, commitKillsOnly: true, log: () => {} }))
        try {
          const report = `${formatResult(result)}\n${result.problems.slice(0, 20).join("\n")}\nreplay: SOAK_SEED=${seed}`
          expect(result.kills, report).toBe(3)
          expect({ duplicates: result.duplicates, lost: result.lost, mismatched: result.mismatched, invariant: result.invariantOk }, report).toEqual({
            duplicates: 0,
            lost: 0,
            mismatched: 0,
            invariant: true
          })
          expect([0, 1], report).toContain(result.finalExit)
          // Every output of the runs (stdout, stderr, ledger, summary, state store): never the secret nor the key.
          const leaks = result.outputs.filter((f) => existsSync(f) && [result.secret, result.key].some((s) => readFileSync(f).includes(s)))
          expect(leaks, report).toEqual([])
          expect(result.outputs.filter((f) => existsSync(f)).length).toBeGreaterThan(8)
        } finally {
          rmSync(result.dir, { recursive: true, force: true })
        }
      }),
    240_000
  )
})
