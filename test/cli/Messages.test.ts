/**
 * Issue 16, item 3, through the real CLI: every message names what is true when it is read. The
 * errors file where it ended up, an approve hint that works as written, validate's verdict (and no
 * "Resuming" from it), a refused key with what to check, the watcher's JSON facts as fields.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { AuthError, Unavailable } from "../../src/api/Errors.ts"
import { preflightFailed } from "../../src/cli/NoticeText.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"

const sellers = (n: number, amount: string, currency = "XAF", prefix = "M") =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount, currency, operator: currency === "XAF" ? "carrier1_cm" : "carrier3_ci", phone: currency === "XAF" ? ordinaryPhone(i + 1) : `+22501479${String(17510 + i).padStart(5, "0")}` }))

const jsonRecords = (output: string): Array<Record<string, unknown>> =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))

describe("a balance preflight refused for its key", () => {
  it("names the settings to check, not only the service's words", () => {
    const text = preflightFailed(new AuthError({ message: "Invalid credentials" }))
    expect(text).toMatch(/^Balance preflight failed: the service refused the credentials \(401: Invalid credentials\)\. /)
    for (const named of ["--api-key", "PAYOUTS_API_KEY", "--api-secret", "PAYOUTS_API_SECRET", "--base-url", "PAYOUTS_BASE_URL"]) expect(text).toContain(named)
    expect(preflightFailed(new Unavailable({ reason: "HTTP 503", status: 503 }))).toBe("Balance preflight failed: service unavailable: HTTP 503")
  })
})

describe("messages that stay true (real CLI)", () => {
  it.scopedLive("a rejected file's errors are named in rejected/, and the JSON log carries batch_id, file, exit_code, counts as fields", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-messages-")
      const root = join(base, "payday")
      mkdirSync(root, { recursive: true })
      writeCsv(root, "bad.csv", [{ id: "B-1", amount: "abc", phone: ordinaryPhone(1) }, { id: "B-2", amount: "1000", phone: ordinaryPhone(2) }])
      const ran = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--state", join(base, "state.db"), "--log-format", "json", ...FAST])
      expect(ran.code).toBe(0)
      expect(readdirSync(join(root, "rejected"))).toContain("bad.errors.csv")
      expect(ran.output).not.toContain(join("processing", "bad.errors.csv"))
      const rejected = jsonRecords(ran.output).find((r) => String(r.message).startsWith("rejected"))
      expect(rejected, ran.output).toBeDefined()
      expect(rejected!.message).toContain(`errors in ${join(root, "rejected", "bad.errors.csv")}`)
      expect(rejected!.errors_file).toBe(join(root, "rejected", "bad.errors.csv"))
      expect(rejected!.file).toBe(join(root, "rejected", "bad.csv"))
      expect(rejected!.exit_code).toBe(2)
      expect(typeof rejected!.batch_id).toBe("string")
      expect(rejected!.counts).toMatchObject({ rejected: 2 })

      writeCsv(root, "good.csv", sellers(3, "1000"))
      const paid = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--state", join(base, "state.db"), "--log-format", "json", ...FAST])
      expect(paid.code).toBe(0)
      const done = jsonRecords(paid.output).find((r) => String(r.message).startsWith("done"))
      expect(done, paid.output).toMatchObject({ file: join(root, "done", "good.csv"), exit_code: 0, counts: { completed: 3 } })
      expect(typeof done!.batch_id).toBe("string")
    }), 180_000)

  it.scopedLive("the watcher's approve hint names a folder that is not the default, and works as written", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-messages-")
      const root = join(base, "payday")
      const state = join(base, "state.db")
      mkdirSync(root, { recursive: true })
      writeCsv(root, "payroll.csv", sellers(2, "1500"))
      const watched = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--require-approval", "--state", state, ...FAST])
      expect(watched.code).toBe(0)
      const hint = /approve with: (payouts approve \S+ --jobs \S+ --by NAME)/.exec(watched.output)
      expect(hint, watched.output).not.toBeNull()
      const args = hint![1].replace("NAME", "alice").split(" ").slice(1)
      expect(args).toContain(root)
      const approved = yield* payoutsDone(serviceOf(sandbox), args, { PAYOUTS_STATE: state })
      expect(approved.code, approved.output).toBe(0)
      expect(existsSync(join(root, "awaiting-approval", "payroll.csv"))).toBe(false)
    }), 180_000)

  it.scopedLive("validate ends with its verdict, with thousands separators; never says it resumes; a refused key says what to check", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-messages-")
      const state = join(base, "state.db")
      const file = writeCsv(base, "week.csv", sellers(50, "118147", "XOF"))
      const env = { PAYOUTS_STATE: state, LANG: "en_US.UTF-8", LC_ALL: "", LC_NUMERIC: "" }
      const ok = yield* payoutsDone(serviceOf(sandbox), ["validate", file], env)
      expect(ok.code, ok.output).toBe(0)
      const last = ok.stderr.trim().split("\n").at(-1)
      // 50 x 118,147 = 5,907,350 XOF; the fee estimate (2%, at least 50) is 2,363 per row.
      expect(last).toBe("OK: 50 rows would be paid, 5,907,350 XOF + est. fees 118,150 XOF = total debited 6,025,500 XOF.")

      // After a real run of the same file, validate checks it again and resumes nothing.
      const paid = yield* payoutsDone(serviceOf(sandbox), ["run", file, "--yes", ...FAST.slice(0, 10)], env)
      expect(paid.code, paid.output).toBe(0)
      const again = yield* payoutsDone(serviceOf(sandbox), ["validate", file], env)
      expect(again.output).not.toMatch(/Resum/i)
      expect(again.stderr.trim().split("\n").at(-1)).toMatch(/^(OK|NOT OK): /)

      // Ids already paid by another batch: the file is refused whole, and validate says so last.
      const reused = yield* payoutsDone(serviceOf(sandbox), ["validate", writeCsv(base, "again.csv", sellers(2, "1000", "XOF"))], env)
      expect(reused.code).toBe(2)
      expect(reused.stderr.trim().split("\n").at(-1)).toMatch(/^NOT OK: the file would be refused, nothing paid\. Errors written to .*again\.errors\.csv$/)

      const short = writeCsv(base, "big.csv", sellers(2, "40000000", "XOF", "BIG"))
      const refused = yield* payoutsDone(serviceOf(sandbox), ["validate", short], env)
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim().split("\n").at(-1)).toMatch(/^NOT OK: the file would not be paid whole: XOF needs 81,600,000 XOF, [\d,]+ XOF available\.$/)

      const wrongKey = yield* payoutsDone({ ...serviceOf(sandbox), key: "not-the-key" }, ["run", file, "--yes"], env)
      expect(wrongKey.code).toBe(2)
      const lines = wrongKey.stderr.trim().split("\n")
      expect(lines.at(-1)).toMatch(/^payouts: the service at http:\/\/127\.0\.0\.1:\d+\/v1 refused the credentials/)
      // Each setting named where it came from (here the environment), with the key's fingerprint.
      for (const named of ["key (sha256:", "from environment PAYOUTS_API_KEY", "secret from environment PAYOUTS_API_SECRET", "base URL from environment PAYOUTS_BASE_URL"]) {
        expect(lines.at(-1)).toContain(named)
      }
      expect(wrongKey.output).not.toContain("not-the-key")
    }), 180_000)
})
