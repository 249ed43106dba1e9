/**
 * `payouts halt` (issue 12, item 14) through the real binary: a halt set while a slow run goes on
 * stops its payouts within about a second (no POST after that), the run follows what it sent and exits
 * 3 with the rows not sent still waiting; a run started while halted pays nothing and exits 3;
 * `batches` and `halt` show the halt; after `halt --lift` a rerun pays the rest, each row once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox, transactionsNow } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST, start, until } from "./binarySupport.ts"

const ROWS = 30

/** When each payout reached the sandbox (epoch ms; time scale 1, so the sandbox's clock is ours). */
const createdTimes = (sandbox: Sandbox) =>
  Effect.map(transactionsNow(sandbox), (txns) => txns.filter((t) => t.type === "payout").map((t) => t.createdAt))

describe("payouts halt (the binary)", () => {
  it.scopedLive(
    "stops every payout of a running batch; a run while halted pays nothing; lifted, the rerun pays the rest exactly once",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-halt-")
        const state = join(dir, "state.db")
        const file = writeCsv(
          dir,
          "halt.csv",
          Array.from({ length: ROWS }, (_, i) => ({ id: `H-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(700 + i) }))
        )
        const sent = Effect.map(createdTimes(sandbox), (t) => t.length)

        const none = yield* cli(sandbox, state, ["halt"])
        expect(none.code, none.stderr).toBe(0)
        expect(none.stdout).toContain("No halt in force")
        const noReason = yield* cli(sandbox, state, ["halt", "--by", "ops-ana"])
        expect(noReason.code).toBe(2)
        expect(noReason.stderr).toContain("--reason")

        // One request a second, all calls together: the batch takes well over thirty seconds, so the
        // halt (a process to start, slow on a loaded machine) lands while it runs.
        const running = start(sandbox, state, ["run", file, ...FAST, "--rate", "1", "--concurrency", "4"])
        yield* Effect.addFinalizer(() => Effect.sync(() => running.child.exitCode === null && running.child.kill("SIGKILL")))
        yield* until("the first payouts", Effect.map(sent, (n) => n >= 2))

        const halted = yield* cli(sandbox, state, ["halt", "--by", "ops-ana", "--reason", "wrong file loaded"])
        expect(halted.code, halted.stderr).toBe(0)
        expect(halted.stdout).toContain("HALTED: account halted by ops-ana")
        const haltedAt = Date.now()

        const first = yield* running.exit
        expect(first.code, first.stderr).toBe(3)
        expect(first.stderr).toContain("Halted (exit 3): account halted by ops-ana")
        expect(first.stderr).toContain("wrong file loaded")
        // The runner reads the halt at most about a second old, and checks it right before each POST.
        const late = (yield* createdTimes(sandbox)).filter((at) => at > haltedAt + 1_500)
        expect(late).toEqual([])
        const paidWhenHalted = yield* sent
        expect(paidWhenHalted).toBeLessThan(ROWS)

        const shown = yield* cli(sandbox, state, ["halt"])
        expect(shown.stdout).toContain("HALTED: account halted by ops-ana")
        const batches = yield* cli(sandbox, state, ["batches"])
        expect(batches.code, batches.stderr).toBe(0)
        expect(batches.stdout).toContain("HALTED: account halted by ops-ana")
        expect(batches.stdout).toMatch(/halt\.csv\s+open/)

        // A run that starts while halted says so, follows what was sent, pays nothing new: exit 3.
        const whileHalted = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(whileHalted.code, whileHalted.stderr).toBe(3)
        expect(whileHalted.stderr).toContain("account halted by ops-ana")
        const summary = JSON.parse(whileHalted.stdout)
        expect(summary.halted.by).toBe("ops-ana")
        expect(summary.counts.validated).toBe(ROWS - paidWhenHalted)
        expect(yield* sent).toBe(paidWhenHalted)

        const noBy = yield* cli(sandbox, state, ["halt", "--lift"])
        expect(noBy.code).toBe(2)
        const lifted = yield* cli(sandbox, state, ["halt", "--lift", "--by", "ops-ana"])
        expect(lifted.code, lifted.stderr).toBe(0)
        expect(lifted.stderr).toContain("Halt lifted by ops-ana")
        expect(lifted.stdout).toContain("No halt in force")

        const rerun = yield* cli(sandbox, state, ["run", file, ...FAST])
        expect(rerun.code, rerun.stderr).toBe(0)
        const counts = countByToken(yield* admin(sandbox).payouts)
        expect(counts.size).toBe(ROWS)
        expect([...counts.values()].every((n) => n === 1)).toBe(true)
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
      }),
    240_000
  )
})
