/**
 * `payouts retry BATCH` (issue 16, item 5) through the real binary against the sandbox: the failed,
 * cancelled and expired rows of a finished batch are paid once more, with new tokens, and nothing
 * else; a second retry of the same batch pays nothing; `batches` and the summary show the link; a
 * file reusing a failed id outside a retry is still refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PAYOUT_NUMBERS } from "../../src/sandbox/TestNumbers.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST as JOB_FAST } from "../jobs/cli.ts"
import { cli, FAST } from "./binarySupport.ts"

const FAILS = PAYOUT_NUMBERS.CM.failure
const CANCELS = PAYOUT_NUMBERS.CM.cancelled

const payoutsTo = <P extends { readonly phone?: string; readonly phoneNumber?: string }>(payouts: ReadonlyArray<P>, phone: string) =>
  payouts.filter((p) => (p.phoneNumber ?? p.phone) === phone || (p.phoneNumber ?? p.phone) === phone.slice(1))

describe("payouts retry (the binary)", () => {
  it.scopedLive(
    "pays the failed and cancelled rows once more and nothing else; a second retry pays nothing; the link is shown; the ids stay refused elsewhere",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-retry-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "sellers.csv", [
          { id: "S-1", amount: "1000", phone: ordinaryPhone(1) },
          { id: "S-2", amount: "2000", phone: FAILS },
          { id: "S-3", amount: "3000", phone: CANCELS },
          { id: "S-4", amount: "4000", phone: ordinaryPhone(4) },
          { amount: "5000", phone: FAILS }
        ])
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(1)
        const parent = JSON.parse(first.stdout)
        expect(parent.counts).toMatchObject({ completed: 2, failed: 2, cancelled: 1 })
        const before = yield* admin(sandbox).payouts
        expect(before).toHaveLength(5)

        const out = join(dir, "retries")
        const retried = yield* cli(sandbox, state, ["retry", parent.batch_id.slice(0, 8), "--out", out, ...FAST, "--json"])
        expect(retried.code, retried.stderr).toBe(1)
        const child = JSON.parse(retried.stdout)
        expect(child.parent).toBe(parent.batch_id)
        expect(child.batch_id).not.toBe(parent.batch_id)
        expect(child.total_rows).toBe(3)
        expect(child.counts).toMatchObject({ failed: 2, cancelled: 1 })
        expect(retried.stderr).toContain(`Retry of batch ${parent.batch_id} (retry generation 1): 3 row(s)`)
        const childFile = join(out, "sellers.retry1.csv")
        expect(existsSync(childFile)).toBe(true)
        expect(readFileSync(childFile, "utf8")).toContain(`S-2,2000,XAF,carrier1_cm,${FAILS}`)

        // Exactly the three unpaid rows went out once more, with tokens of their own; the paid ones did not.
        const after = yield* admin(sandbox).payouts
        expect(after).toHaveLength(8)
        const added = after.filter((p) => !before.some((b) => b.reference === p.reference))
        expect(payoutsTo(added, FAILS).map((p) => p.amount).sort((a, b) => a - b)).toEqual([2000, 5000])
        expect(payoutsTo(added, CANCELS).map((p) => p.amount)).toEqual([3000])
        const oldTokens = new Set(before.map((p) => p.description.slice(0, 14)))
        for (const p of added) expect(oldTokens.has(p.description.slice(0, 14))).toBe(false)

        // The same retry again finds the same child, already done: nothing is paid.
        const again = yield* cli(sandbox, state, ["retry", parent.batch_id, "--out", out, ...FAST, "--json"])
        expect(again.code, again.stderr).toBe(0)
        expect(again.stderr).toContain(`was already retried as batch ${child.batch_id}, which ran to its end: nothing is paid again`)
        expect(yield* admin(sandbox).payouts).toHaveLength(8)

        // Its file run again reports the finished child, and the closing line says whose rows it paid again.
        const rerun = yield* cli(sandbox, state, ["run", childFile, "--out", out, ...FAST])
        expect(rerun.stderr).toContain(`(retry of batch ${parent.batch_id}): `)
        expect(yield* admin(sandbox).payouts).toHaveLength(8)

        const listed = yield* cli(sandbox, state, ["batches", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        const views = JSON.parse(listed.stdout) as Array<{ batch_id: string; parent: string | null; retried_as: string | null }>
        expect(views.find((v) => v.batch_id === child.batch_id)?.parent).toBe(parent.batch_id)
        expect(views.find((v) => v.batch_id === parent.batch_id)?.retried_as).toBe(child.batch_id)
        const table = yield* cli(sandbox, state, ["batches", "--wide"])
        expect(table.stdout).toMatch(new RegExp(`sellers\\.retry1\\.csv.*${parent.batch_id}`))

        // Outside a retry the failed ids are still used: a new file reusing one is refused, nothing paid.
        const reuse = join(dir, "reuse.csv")
        writeFileSync(reuse, `id,amount,currency,operator,phone,name,email\nS-2,2000,XAF,carrier1_cm,${ordinaryPhone(9)},Someone,s@example.com\n`)
        const refused = yield* cli(sandbox, state, ["run", reuse, ...FAST])
        expect(refused.code).toBe(2)
        expect(refused.stderr).toContain(`id "S-2" was already used`)
        // So is an edited copy of the retry file: only the exact child batch may use the ids again.
        const edited = join(dir, "edited.csv")
        writeFileSync(edited, readFileSync(childFile, "utf8").replace("2000", "2001"))
        const editedRun = yield* cli(sandbox, state, ["run", edited, ...FAST])
        expect(editedRun.code).toBe(2)
        expect(editedRun.stderr).toContain(`id "S-2" was already used`)
        expect(yield* admin(sandbox).payouts).toHaveLength(8)
      }),
    180_000
  )

  it.scopedLive(
    "with --jobs the retry file goes through the folder workflow: put up for approval, paid only once approved",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-retry-jobs-")
        const state = join(dir, "state.db")
        const root = join(dir, "jobs")
        mkdirSync(root, { recursive: true })
        const file = writeCsv(dir, "payroll.csv", [
          { id: "P-1", amount: "1500", phone: ordinaryPhone(11) },
          { id: "P-2", amount: "2500", phone: FAILS }
        ])
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(1)
        const parent = JSON.parse(first.stdout)
        expect(yield* admin(sandbox).payouts).toHaveLength(2)

        const dropped = yield* cli(sandbox, state, ["retry", parent.batch_id, "--jobs", root])
        expect(dropped.code, dropped.stderr).toBe(0)
        expect(dropped.stderr).toContain("Left in the job folder")
        expect(readdirSync(root)).toContain("payroll.retry1.csv")

        const watch = ["watch", root, "--once", "--require-approval", ...JOB_FAST]
        const putUp = yield* cli(sandbox, state, watch)
        expect(putUp.code, putUp.stderr).toBe(0)
        const awaiting = join(root, "awaiting-approval")
        const request = JSON.parse(readFileSync(join(awaiting, "payroll.retry1.approval.json"), "utf8"))
        expect(request.currencies.XAF).toMatchObject({ rows: 1, amount: "2500" })
        expect(yield* admin(sandbox).payouts).toHaveLength(2)
        // Retried again while its child waits for approval: no second copy in the folder.
        const twice = yield* cli(sandbox, state, ["retry", parent.batch_id, "--jobs", root, "--json"])
        expect(twice.code, twice.stderr).toBe(0)
        expect(JSON.parse(twice.stdout)).toMatchObject({ retry_of: parent.batch_id, batch_id: request.batch_id, status: "waiting_in_job_folder", rows: 1 })
        expect(twice.stderr).toContain(`was already retried as batch ${request.batch_id}: its file waits in the job folder`)
        expect(readdirSync(root).filter((n) => n.endsWith(".csv"))).toEqual([])

        const approved = yield* cli(sandbox, state, ["approve", request.batch_id, "--jobs", root, "--by", "fin-ana"])
        expect(approved.code, approved.stderr).toBe(0)
        const paid = yield* cli(sandbox, state, watch)
        expect(paid.code, paid.stderr).toBe(0)
        const payouts = yield* admin(sandbox).payouts
        expect(payouts).toHaveLength(3)
        expect(payoutsTo(payouts, FAILS).map((p) => p.amount)).toEqual([2500, 2500])
        const summary = JSON.parse(readFileSync(join(root, "done", "payroll.retry1.summary.json"), "utf8"))
        expect([summary.parent, summary.batch_id, summary.counts.failed]).toEqual([parent.batch_id, request.batch_id, 1])
      }),
    180_000
  )
})
