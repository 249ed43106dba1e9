/**
 * Issue 31 item 10 through the real binary: `payouts run` against a sandbox whose clock runs 60 times
 * faster settles the rows whose POST failed before commit by itself (one resend each, after the
 * listing proved them absent), and ends paid once, exit 0.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { FAST, start, until } from "../cli/binarySupport.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROWS = 10

describe("a rehearsal on a time-scaled sandbox, through the binary (issue 31 item 10)", () => {
  it.scopedLive("rows in doubt are resent once after proof, without a person: exit 0, each paid once", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 60, payoutDelaySeconds: 10, faults: "payout.error_before=0.3,seed=5" })
      const dir = tempDir("payouts-rehearsal-")
      const file = writeCsv(dir, "rehearsal.csv", Array.from({ length: ROWS }, (_, i) => ({ id: `R-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) })))
      const run = start(sandbox, join(dir, "state.db"), ["run", file, ...FAST, "--rate", "5", "--reconcile-deadline", "90s"])
      yield* Effect.addFinalizer(() => Effect.sync(() => run.child.exitCode === null && run.child.kill("SIGKILL")))
      // Every row sent once (some met the fault): the faults go, so the resends are answered.
      const counters = Effect.promise(async () => {
        const response = await fetch(`${sandbox.origin}/__sandbox/faults`, { headers: { "X-API-Key": sandbox.key, "X-API-Secret": sandbox.secret, Accept: "application/json" } })
        return ((await response.json()) as { counters: Record<string, number> }).counters
      })
      yield* until("every row sent once", Effect.map(counters, (c) => (c["payout.requests"] ?? 0) >= ROWS))
      const failed = (yield* counters)["payout.error_before"] ?? 0
      yield* admin(sandbox).faults("")
      const finished = yield* run.exit
      expect(failed).toBeGreaterThan(0)
      expect(finished.code, finished.stderr).toBe(0)
      expect(finished.stderr.match(/resending once with the same token/g)?.length).toBe(failed)
      expect(finished.stderr).not.toContain("clock differs")
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect(counts.size).toBe(ROWS)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    }), 150_000)
})
