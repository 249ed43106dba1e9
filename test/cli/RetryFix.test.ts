/**
 * `payouts retry BATCH --fix FILE` (issue 31, item 5) through the real binary against the sandbox: a
 * failed row is paid again with a corrected phone and name, linked to its row in the store and both
 * ledgers; the same fix file again pays nothing; a fix of a paid row, of an unknown id or with another
 * amount is refused with its line and column; a new file reusing the failed id is refused with a hint
 * naming the command; a whole retry afterwards leaves the fixed row out.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PAYOUT_NUMBERS } from "../../src/sandbox/TestNumbers.ts"
import { ordinaryPhone, readLedger, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST, start } from "./binarySupport.ts"

const FAILS = PAYOUT_NUMBERS.CM.failure
const HEADER = "id,amount,currency,operator,phone,name,email"

const payoutsTo = <P extends { readonly phone?: string; readonly phoneNumber?: string }>(payouts: ReadonlyArray<P>, phone: string) =>
  payouts.filter((p) => (p.phoneNumber ?? p.phone) === phone || (p.phoneNumber ?? p.phone) === phone.slice(1))

const fixFile = (dir: string, name: string, rows: ReadonlyArray<string>) => {
  const file = join(dir, name)
  writeFileSync(file, `${[HEADER, ...rows].join("\n")}\n`)
  return file
}

describe("payouts retry --fix (the binary)", () => {
  it.scopedLive(
    "pays a failed row again with a corrected phone, once, linked to its row; refuses what it must with line and column",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-retry-fix-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "sellers.csv", [
          { id: "S-1", amount: "1000", phone: ordinaryPhone(1) },
          { id: "S-2", amount: "2000", phone: FAILS, name: "Awa Ndiaye" },
          { id: "S-3", amount: "3000", phone: FAILS, name: "Awa Ndiaye" }
        ])
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(1)
        const parent = JSON.parse(first.stdout)
        expect(parent.counts).toMatchObject({ completed: 1, failed: 2 })
        const paidFirst = (yield* admin(sandbox).payouts).length
        expect(paidFirst).toBe(3)

        // A new file with the failed id: refused, and told which command pays it again.
        const reuse = writeCsv(dir, "reuse.csv", [{ id: "S-2", amount: "2000", phone: ordinaryPhone(2) }])
        const refused = yield* cli(sandbox, state, ["run", reuse, ...FAST])
        expect(refused.code).toBe(2)
        expect(refused.stderr).toContain(`id "S-2" was already used in sellers.csv line 3 (failed)`)
        expect(refused.stderr).toContain(`payouts retry ${parent.batch_id} --fix FILE`)

        // Refused fixes, each with its line and column; nothing is paid.
        const amountChanged = fixFile(dir, "amount.csv", [`s-2,2500,XAF,carrier1_cm,${ordinaryPhone(2)},Awa Ndiaye,a@example.com`])
        const amount = yield* cli(sandbox, state, ["retry", parent.batch_id, "--fix", amountChanged, ...FAST])
        expect(amount.code).toBe(2)
        expect(amount.stderr).toMatch(/amount\.csv line 2, column "amount": amount differs from row 3 of batch \w+ \(2000 XAF\)/)
        const wrong = fixFile(dir, "wrong.csv", [
          `S-1,1000,XAF,carrier1_cm,${ordinaryPhone(5)},Seller 1,s1@example.com`,
          `S-9,1000,XAF,carrier1_cm,${ordinaryPhone(6)},Someone,s9@example.com`,
          `S-3,3000,XAF,carrier1_cm,12345,Awa Ndiaye,a@example.com`
        ])
        const wrongRun = yield* cli(sandbox, state, ["retry", parent.batch_id, "--fix", wrong, ...FAST, "--json"])
        expect(wrongRun.code).toBe(2)
        expect(wrongRun.stderr).toMatch(/wrong\.csv line 2, column "id": .*row 2 of batch \w+ \(id "S-1"\) is already paid \(completed/)
        expect(wrongRun.stderr).toMatch(/wrong\.csv line 3, column "id": .*id "S-9" is not in batch/)
        expect(wrongRun.stderr).toMatch(/wrong\.csv line 4, column "phone"/)
        expect(JSON.parse(wrongRun.stdout)).toMatchObject({ status: "refused", batch_id: null })
        expect(yield* admin(sandbox).payouts).toHaveLength(paidFirst)

        // The fix: S-2 with a corrected phone and name (id in another case: one id), paid once.
        const good = fixFile(dir, "sellers.unpaid.csv", [`s-2,2000,XAF,carrier1_cm,${ordinaryPhone(2)},Awa Ndiaye-Sow,a@example.com`])
        const out = join(dir, "out")
        const fixed = yield* cli(sandbox, state, ["retry", parent.batch_id, "--fix", good, "--out", out, ...FAST, "--json"])
        expect(fixed.code, fixed.stderr).toBe(0)
        const child = JSON.parse(fixed.stdout)
        expect(child.parent).toBe(parent.batch_id)
        expect(child.counts).toMatchObject({ completed: 1 })
        expect(fixed.stderr).toContain(`line 2 (id S-2): fixes row 3 of batch ${parent.batch_id}, paid again as line 2: phone +237`)
        expect(fixed.stderr).toContain(`name "Awa Ndiaye" -> "Awa Ndiaye-Sow"`)
        const after = yield* admin(sandbox).payouts
        expect(after).toHaveLength(paidFirst + 1)
        expect(payoutsTo(after, ordinaryPhone(2)).map((p) => p.amount)).toEqual([2000])

        // Linked both ways, in the store, through both ledgers.
        const childLedger = readLedger(child.ledger)
        expect(childLedger).toHaveLength(1)
        expect(childLedger[0]).toMatchObject({ id: "S-2", phone: ordinaryPhone(2), name: "Awa Ndiaye-Sow", status: "completed", retry_of: `${parent.batch_id} line 3` })
        const again = join(dir, "again")
        const parentLedger = yield* cli(sandbox, state, ["ledger", parent.batch_id, "--out", again])
        expect(parentLedger.code, parentLedger.stderr).toBe(0)
        const rows = readLedger(join(again, "sellers.ledger.csv"))
        expect(rows.find((r) => r.id === "S-2")).toMatchObject({ status: "failed", retried_as: `${child.batch_id} line 2` })
        expect(rows.find((r) => r.id === "S-3")?.retried_as).toBe("")

        // The same fix file again: the same child, already done; nothing is paid.
        const twice = yield* cli(sandbox, state, ["retry", parent.batch_id, "--fix", good, "--out", out, ...FAST])
        expect(twice.code, twice.stderr).toBe(0)
        expect(twice.stderr).toContain(`were already paid again as batch ${child.batch_id}`)
        expect(twice.stderr).toContain("nothing is paid again")
        // A second fix file for the row already paid again: refused, naming the child.
        const other = fixFile(dir, "other.csv", [`S-2,2000,XAF,carrier1_cm,${ordinaryPhone(7)},Awa Ndiaye-Sow,a@example.com`])
        const otherRun = yield* cli(sandbox, state, ["retry", parent.batch_id, "--fix", other, "--out", out, ...FAST])
        expect(otherRun.code).toBe(2)
        expect(otherRun.stderr).toContain(`is already paid again as batch ${child.batch_id} line 2`)
        expect(yield* admin(sandbox).payouts).toHaveLength(paidFirst + 1)

        // The whole retry afterwards pays S-3 alone: S-2 is its fix's.
        const whole = yield* cli(sandbox, state, ["retry", parent.batch_id, "--out", out, ...FAST, "--json"])
        expect(whole.code, whole.stderr).toBe(1)
        expect(JSON.parse(whole.stdout).total_rows).toBe(1)
        expect(readFileSync(join(out, "sellers.retry1.csv"), "utf8")).toContain("S-3,3000")
        expect(yield* admin(sandbox).payouts).toHaveLength(paidFirst + 2)
      }),
    240_000
  )

  it.scopedLive(
    "two retry --fix of the same file at the same moment pay the row once",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-retry-fix-race-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "race.csv", [
          { id: "R-1", amount: "1000", phone: ordinaryPhone(31) },
          { id: "R-2", amount: "2000", phone: FAILS }
        ])
        const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--json"])
        expect(first.code, first.stderr).toBe(1)
        const parent = JSON.parse(first.stdout)
        const good = fixFile(dir, "race.unpaid.csv", [`R-2,2000,XAF,carrier1_cm,${ordinaryPhone(32)},Seller 2,s2@example.com`])
        // No --out: the child goes beside the fix file, as outputs go beside their input.
        const args = ["retry", parent.batch_id, "--fix", good, ...FAST]
        const [a, b] = [start(sandbox, state, args), start(sandbox, state, args)]
        const ends = yield* Effect.all([a.exit, b.exit], { concurrency: 2 })
        expect(ends.some((end) => end.code === 0), ends.map((end) => end.stderr).join("\n---\n")).toBe(true)
        // Whatever the other one did (waited, resumed, found it done), one payout went out.
        expect(readdirSync(dir).filter((name) => /^race\.retry1-[0-9a-f]{8}\.(csv|ledger\.csv)$/.test(name))).toHaveLength(2)
        const after = yield* cli(sandbox, state, args)
        expect(after.code, after.stderr).toBe(0)
        expect(after.stderr).toContain("nothing is paid again")
        expect(payoutsTo(yield* admin(sandbox).payouts, ordinaryPhone(32))).toHaveLength(1)
      }),
    240_000
  )
})
