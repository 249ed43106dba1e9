/**
 * The guards (issue 12, item 13) through the real binary: a row over a guard is refused at intake with
 * the guard named (exit 2, nothing paid, the errors file), or rejected under --skip-invalid; a row that
 * another batch pushed over the daily cap while this one ran is not sent (skipped, the guard named).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, type Seller, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST, start, until } from "./binarySupport.ts"

const sellers = (n: number, prefix: string, amount: string, phoneBase: number): Array<Seller> =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount, phone: ordinaryPhone(phoneBase + i) }))

const paidCount = (sandbox: Sandbox) => Effect.map(admin(sandbox).payouts, (p) => p.length)

/** The ledger's lines (raw CSV text) that carry `text`. */
const ledgerLines = (file: string, text: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.includes(text))

describe("guards (the binary)", () => {
  it.scopedLive(
    "--max-payout: one amount typed too large refuses the file (exit 2, guard named, nothing paid); from the environment with --skip-invalid only that row is rejected; a malformed value is a usage error",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-guard-max-")
        const state = join(dir, "state.db")
        const rows = sellers(4, "M", "5000", 100)
        rows[2] = { ...rows[2], amount: "5000000" }
        const file = writeCsv(dir, "typo.csv", rows)

        const refused = yield* cli(sandbox, state, ["run", file, ...FAST, "--max-payout", "XAF:100000,XOF:50000"])
        expect(refused.code, refused.stderr).toBe(2)
        expect(refused.stderr).toContain("--max-payout")
        const errors = readFileSync(join(dir, "typo.errors.csv"), "utf8")
        expect(errors).toMatch(/^4,amount,5000000,.*over --max-payout: 5000000 XAF is above the limit of 100000 XAF per payout/m)
        expect(yield* paidCount(sandbox)).toBe(0)

        const validate = yield* cli(sandbox, state, ["validate", file, "--max-payout", "XAF:100000"])
        expect(validate.code, validate.stderr).toBe(2)

        const skipped = yield* cli(sandbox, state, ["run", file, ...FAST, "--skip-invalid"], { PAYOUTS_MAX_PAYOUT: "XAF:100000" })
        expect(skipped.code, skipped.stderr).toBe(1)
        expect(ledgerLines(join(dir, "typo.ledger.csv"), "--max-payout")).toHaveLength(1)
        expect(ledgerLines(join(dir, "typo.ledger.csv"), "--max-payout")[0]).toContain("rejected")
        const paid = yield* admin(sandbox).payouts
        expect(paid.map((p) => p.amount).sort()).toEqual([5000, 5000, 5000])

        const malformed = yield* cli(sandbox, state, ["validate", file, "--max-payout", "XAF:1.5"])
        expect(malformed.code).toBe(2)
        expect(malformed.stderr).toContain("--max-payout")
        const unknown = yield* cli(sandbox, state, ["validate", file], { PAYOUTS_MAX_PAYOUT: "XAF=100000" })
        expect(unknown.code).toBe(2)
        expect(unknown.stderr).toContain("PAYOUTS_MAX_PAYOUT")
      }),
    120_000
  )

  it.scopedLive(
    "--max-batch-total refuses a batch above the total (exit 2, the rows over it named, nothing paid)",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-guard-total-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "big.csv", sellers(4, "T", "30000", 200))
        const refused = yield* cli(sandbox, state, ["run", file, ...FAST, "--max-batch-total", "XAF:100000"])
        expect(refused.code, refused.stderr).toBe(2)
        const errors = readFileSync(join(dir, "big.errors.csv"), "utf8")
        expect(errors).toContain("over --max-batch-total: this row would bring the batch to 120000 XAF, above the limit of 100000 XAF")
        expect(errors).toMatch(/^5,amount,30000,/m)
        expect(yield* paidCount(sandbox)).toBe(0)
      }),
    60_000
  )

  it.scopedLive(
    "--daily-cap across batches: a second batch over the cap is refused at intake; rows another batch pushed over the cap mid-run are skipped, named",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-guard-cap-")
        const state = join(dir, "state.db")
        const cap = ["--daily-cap", "XAF:30000"]

        // Ten rows of 2000 fit the cap on their own; the run is slow (one request a second).
        const slow = writeCsv(dir, "slow.csv", sellers(10, "S", "2000", 300))
        const running = start(sandbox, state, ["run", slow, ...FAST, ...cap, "--rate", "1", "--concurrency", "1"])
        yield* Effect.addFinalizer(() => Effect.sync(() => running.child.exitCode === null && running.child.kill("SIGKILL")))
        yield* until("the slow batch's first payout", Effect.map(paidCount(sandbox), (n) => n >= 1))

        // Meanwhile another batch, run without the guard, pays 20000.
        const other = writeCsv(dir, "other.csv", sellers(4, "O", "5000", 400))
        const fast = yield* cli(sandbox, state, ["run", other, ...FAST])
        expect(fast.code, fast.stderr).toBe(0)

        const slowEnd = yield* running.exit
        expect(slowEnd.code, slowEnd.stderr).toBe(1)
        const skipped = ledgerLines(join(dir, "slow.ledger.csv"), "--daily-cap")
        expect(skipped.length).toBeGreaterThan(0)
        for (const line of skipped) expect(line).toContain("skipped")
        const slowPaid = (yield* admin(sandbox).payouts).filter((p) => p.amount === 2000).length
        expect(slowPaid + skipped.length).toBe(10)

        // Now the day holds 20000 + the slow batch's; a new batch of 2 x 6000 goes over: refused at intake.
        const late = writeCsv(dir, "late.csv", sellers(2, "L", "6000", 500))
        const before = yield* paidCount(sandbox)
        const refused = yield* cli(sandbox, state, ["run", late, ...FAST, ...cap])
        expect(refused.code, refused.stderr).toBe(2)
        expect(readFileSync(join(dir, "late.errors.csv"), "utf8")).toContain("over --daily-cap: this row would bring the account's payouts of the last 24 hours to")
        expect(yield* paidCount(sandbox)).toBe(before)
        expect([...countByToken(yield* admin(sandbox).payouts).values()].every((n) => n === 1)).toBe(true)
      }),
    180_000
  )

  it.scopedLive(
    "--phone-daily-limit: a phone already paid the limit in another batch is refused (rejected under --skip-invalid), within one file too",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-guard-phone-")
        const state = join(dir, "state.db")
        const limit = ["--phone-daily-limit", "2"]
        const phone = ordinaryPhone(600)
        const first = writeCsv(dir, "first.csv", [
          { id: "F-1", amount: "1000", phone },
          { id: "F-2", amount: "1500", phone },
          { id: "F-3", amount: "1000", phone: ordinaryPhone(601) }
        ])
        const ran = yield* cli(sandbox, state, ["run", first, ...FAST, ...limit])
        expect(ran.code, ran.stderr).toBe(0)

        const second = writeCsv(dir, "second.csv", [
          { id: "G-1", amount: "1200", phone },
          { id: "G-2", amount: "1200", phone: ordinaryPhone(602) }
        ])
        const refused = yield* cli(sandbox, state, ["run", second, ...FAST, ...limit])
        expect(refused.code, refused.stderr).toBe(2)
        expect(readFileSync(join(dir, "second.errors.csv"), "utf8")).toMatch(/^2,phone,\+?\d+,.*over --phone-daily-limit: this would be payout 3 to this phone/m)
        const partly = yield* cli(sandbox, state, ["run", second, ...FAST, ...limit, "--skip-invalid"])
        expect(partly.code, partly.stderr).toBe(1)
        const toPhone = (yield* admin(sandbox).payouts).filter((p) => (p.phoneNumber ?? p.phone) === phone)
        expect(toPhone).toHaveLength(2)

        const within = writeCsv(dir, "within.csv", [
          { id: "W-1", amount: "700", phone: ordinaryPhone(603) },
          { id: "W-2", amount: "800", phone: ordinaryPhone(603) },
          { id: "W-3", amount: "900", phone: ordinaryPhone(603) }
        ])
        const same = yield* cli(sandbox, state, ["validate", within, ...limit])
        expect(same.code).toBe(2)
        expect(same.stderr).toContain("--phone-daily-limit")
      }),
    120_000
  )
})
