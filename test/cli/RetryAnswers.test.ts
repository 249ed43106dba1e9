/**
 * `payouts retry` answers scripts and keeps its link (issue 16 leftovers): with --json, every retry
 * that pays nothing now (already done, waiting in a job folder, left there, refused) prints one JSON
 * object on stdout; the child's summary and report name its parent, also when `payouts ledger`
 * writes them again from the store.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { PAYOUT_NUMBERS } from "../../src/sandbox/TestNumbers.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST } from "./binarySupport.ts"

const FAILS = PAYOUT_NUMBERS.CM.failure

describe("payouts retry: answers and the parent link (the binary)", () => {
  it.scopedLive(
    "--json answers when nothing is paid; the summary and report of the child name its parent, after payouts ledger too",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-retry-answers-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "sellers.csv", [
          { id: "S-1", amount: "1000", phone: ordinaryPhone(1) },
          { id: "S-2", amount: "2000", phone: FAILS }
        ])
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(1)
        const parent = JSON.parse(first.stdout).batch_id as string

        const out = join(dir, "retries")
        const retried = yield* cli(sandbox, state, ["retry", parent, "--out", out, ...FAST, "--json"])
        expect(retried.code, retried.stderr).toBe(1)
        const child = JSON.parse(retried.stdout)
        expect(child.parent).toBe(parent)
        // The run's own report names the parent.
        expect(readFileSync(join(out, "sellers.retry1.report.html"), "utf8")).toContain(`Retry of batch ${parent}`)

        // Already retried and run to its end: one object on stdout, exit 0 as before, nothing paid.
        const again = yield* cli(sandbox, state, ["retry", parent, "--out", out, ...FAST, "--json"])
        expect(again.code, again.stderr).toBe(0)
        expect(JSON.parse(again.stdout)).toMatchObject({
          retry_of: parent,
          batch_id: child.batch_id,
          status: "done",
          rows: 1,
          left_out: { unknown_or_abandoned: 0, alarmed: 0, resent: 0 }
        })
        expect(JSON.parse(again.stdout).message).toContain("nothing is paid again")
        expect(yield* admin(sandbox).payouts).toHaveLength(3)

        // Written again from the store: the summary keeps its parent, the report shows it.
        const rewritten = join(dir, "rewritten")
        const ledger = yield* cli(sandbox, state, ["ledger", child.batch_id, "--out", rewritten])
        expect(ledger.code, ledger.stderr).toBe(0)
        const summary = JSON.parse(readFileSync(join(rewritten, "sellers.retry1.summary.json"), "utf8"))
        expect(summary.parent).toBe(parent)
        expect(summary.batch_id).toBe(child.batch_id)
        const report = readFileSync(join(rewritten, "sellers.retry1.report.html"), "utf8")
        expect(report).toMatch(new RegExp(`data-field="parent">Retry of batch ${parent}`))

        // Left in a job folder, then asked again while it is still there: the same answer, no second copy.
        const root = join(dir, "jobs")
        mkdirSync(root, { recursive: true })
        const dropped = yield* cli(sandbox, state, ["retry", child.batch_id, "--jobs", root, "--json"])
        expect(dropped.code, dropped.stderr).toBe(0)
        const left = JSON.parse(dropped.stdout)
        expect(left).toMatchObject({ retry_of: child.batch_id, status: "left_in_job_folder", rows: 1 })
        expect(left.batch_id).toMatch(/^[0-9a-f]{16}$/)
        const waiting = yield* cli(sandbox, state, ["retry", child.batch_id, "--jobs", root, "--json"])
        expect(waiting.code, waiting.stderr).toBe(0)
        expect(JSON.parse(waiting.stdout)).toMatchObject({ retry_of: child.batch_id, batch_id: left.batch_id, status: "left_in_job_folder" })

        // Nothing failed: refused with exit 2 and its payouts: line, and still one object on stdout.
        const paid = writeCsv(dir, "paid.csv", [{ id: "P-1", amount: "1500", phone: ordinaryPhone(7) }])
        const whole = yield* cli(sandbox, state, ["run", paid, ...FAST, "--json"])
        expect(whole.code, whole.stderr).toBe(0)
        const wholeId = JSON.parse(whole.stdout).batch_id as string
        const refused = yield* cli(sandbox, state, ["retry", wholeId, "--json"])
        expect(refused.code).toBe(2)
        expect(refused.stderr).toMatch(/^payouts: batch [0-9a-f]+ has no failed, cancelled or expired row to pay again/)
        expect(JSON.parse(refused.stdout)).toMatchObject({ retry_of: wholeId, batch_id: null, status: "refused", rows: 0 })
        expect(yield* admin(sandbox).payouts).toHaveLength(4)
      }),
    180_000
  )
})
