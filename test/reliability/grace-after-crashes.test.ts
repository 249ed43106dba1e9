/**
 * The grace is not inflated by crashes (issue 30, item 8): 3 SIGKILLs of a real `payouts run` (at a
 * payout's commit or a few seconds in), each restarted 10 s later, against a sandbox whose listing lags
 * 1 s and that leaves some outcomes unknown (so runs read the listing while they pay). The dead
 * time between a read that missed a payout and the read that listed it is no listing lag: the lag
 * every run measures stays near 1 s and the grace near its floor (request timeout 1.5 s + lease 1 s +
 * twice the lag), not the dead time. Replay with GRACE_SOAK_SEED=<seed>.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { basename } from "node:path"
import { formatAlarms, runSoak } from "../../scripts/soak.ts"
import { SAMPLE_GAP_MS } from "../../src/run/ResendRules.ts"

const seed = Number(process.env.GRACE_SOAK_SEED ?? 11)
const LAG_S = 1
const DEAD_MS = 10_000
// Request timeout + lease time of the soak's runs, in seconds.
const FIXED_S = 1.5 + 1

describe("grace after crashes (short soak)", () => {
  it.live(
    `3 SIGKILL rounds, restarted ${DEAD_MS / 1000} s later, listing lag ${LAG_S} s: measured lag and grace stay near their floor (seed ${seed})`,
    () =>
      Effect.gen(function* () {
        const result = yield* Effect.promise(() =>
          runSoak({
            rounds: 3,
            rows: 90,
            seed,
            keep: true,
            maxKillDelayMs: 5_000,
            // Paced, so that a run is still paying when its reads of the listing come.
            rate: 15,
            restartAfterMs: DEAD_MS,
            faults: `transactions.list_lag=${LAG_S}s,payout.error_after=0.1,payout.reset_after=0.03,*.latency=1ms-4ms,seed=${seed}`,
            log: () => {}
          })
        )
        try {
          const raised = result.outputs
            .filter((f) => f.endsWith(".stderr.log") && existsSync(f))
            .flatMap((f) => readFileSync(f, "utf8").split("\n").filter((line) => line.includes("reconcile grace raised")).map((line) => `${basename(f)}: ${line}`))
          const figures = raised.map((line) => {
            const match = /to (\d+) s: .*\(p99 (\d+) s\)/.exec(line)
            return { grace: Number(match?.[1]), lag: Number(match?.[2]) }
          })
          const report = `${raised.join("\n")}\n${formatAlarms(result)}\nreplay: GRACE_SOAK_SEED=${seed}`
          console.log(report)
          expect(result.kills, report).toBe(3)
          expect({ duplicates: result.duplicates, lost: result.lost }, report).toEqual({ duplicates: 0, lost: 0 })
          // 5 (a person must act) only with rows under alarm for a cause the faults explain (a resend
          // that met a fault again, DESIGN 7 rule 6): which request meets a fault depends on timing.
          expect([0, 1, 5], report).toContain(result.finalExit)
          expect(result.finalExit === 5, report).toBe(result.alarmed > 0)
          for (const alarm of result.alarms) expect(["duplicate", "unexplained"], report).not.toContain(alarm.cause)
          // Every figure a run announced: the lag about the service's, the grace near its floor, never the dead time.
          // A sample is at most the lag plus the read gap the measure accepts (SAMPLE_GAP_MS), well below the dead time.
          const most = LAG_S + SAMPLE_GAP_MS / 1000
          expect(figures.length, report).toBeGreaterThan(0)
          for (const { grace, lag } of figures) {
            expect(lag, report).toBeLessThanOrEqual(most)
            expect(grace, report).toBeLessThanOrEqual(Math.ceil(FIXED_S + 2 * most))
          }
        } finally {
          rmSync(result.dir, { recursive: true, force: true })
        }
      }),
    180_000
  )
})
