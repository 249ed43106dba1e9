/** `payouts run` and `payouts validate` through the real binary: exit codes, stdout/stderr, files. */
import { Command as Process } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

const cli = (args: ReadonlyArray<string>, dir: string) =>
  Effect.gen(function* () {
    const env = { PAYOUTS_BASE_URL: "", PAYOUTS_API_KEY: "", PAYOUTS_API_SECRET: "", PAYOUTS_STATE: join(dir, "state.db"), NO_COLOR: "1" }
    const proc = yield* Process.start(Process.make("node", "bin/payouts.js", ...args).pipe(Process.workingDirectory(ROOT), Process.env(env)))
    const [stdout, stderr, code] = yield* Effect.all([text(proc.stdout), text(proc.stderr), proc.exitCode], { concurrency: "unbounded" })
    return { code: Number(code), stdout, stderr }
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

const HEADER = "id,amount,currency,operator,phone,name,email"
const csv = (dir: string, name: string, rows: ReadonlyArray<string>) => {
  const file = join(dir, name)
  writeFileSync(file, [HEADER, ...rows].join("\n") + "\n")
  return file
}

describe("payouts run / validate (the binary)", () => {
  it.live("validate refuses an invalid file with line, column and reason, and writes the errors file (exit 2)", () =>
    Effect.gen(function* () {
      const dir = tempDir("payouts-cli-")
      const file = csv(dir, "bad.csv", [
        "A,5000,XAF,carrier1_cm,+237670000001,Awa Diallo,awa@example.com",
        "B,12.5,XAF,carrier1_cm,+237670000001,Moussa Traore,moussa@example.com"
      ])
      const run = yield* cli(["validate", file, "--sandbox"], dir)
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain(`bad.csv line 3, column "amount": amount must be a whole number for XAF`)
      expect(readFileSync(join(dir, "bad.errors.csv"), "utf8")).toContain("3,amount,12.5,")
      const good = csv(dir, "good.csv", ["A,5000,XAF,carrier1_cm,+237670000001,Awa Diallo,awa@example.com"])
      const ok = yield* cli(["validate", good, "--sandbox", "--json"], dir)
      expect(ok.code, ok.stderr).toBe(0)
      expect(JSON.parse(ok.stdout)).toMatchObject({ outcome: "valid: would be paid whole", counts: { validated: 1 } })
      // Major units with the locale's separators, the total debited and the balance after (issue 31 item 6).
      const n = "\\d{1,3}(?:[,.\\s\\u00a0\\u202f]\\d{3})*"
      expect(ok.stderr).toMatch(new RegExp(`XAF: 1 row, 5.?000 XAF \\+ est\\. fees 100 XAF = total debited 5.?100 XAF\\n +available ${n} XAF; after this batch ${n} XAF: fits`))
    })
  )

  it.live("run --sandbox --json pays a small batch and prints the summary on stdout (exit 1 with a failing test number)", () =>
    Effect.gen(function* () {
      const dir = tempDir("payouts-cli-")
      const file = csv(dir, "small.csv", [
        "A,5000,XAF,carrier1_cm,+237670000001,Awa Diallo,awa@example.com",
        "B,6000,XAF,carrier1_cm,+237670000002,Moussa Traore,moussa@example.com",
        "C,7000,XOF,carrier1_ci,+2250700000001,Koffi Yao,koffi@example.com"
      ])
      const run = yield* cli(["run", file, "--sandbox", "--json", "--out", join(dir, "out"), "--poll-interval", "100ms"], dir)
      expect(run.code, run.stderr).toBe(1)
      const summary = JSON.parse(run.stdout)
      expect(summary.counts).toEqual({ completed: 2, failed: 1 })
      expect(summary.exit_code).toBe(1)
      expect(summary.totals.XAF).toMatchObject({ rows: 2, amount: "11000", completed_amount: "5000", fees: "50" })
      expect(existsSync(join(dir, "out", "small.ledger.csv"))).toBe(true)
      expect(readFileSync(join(dir, "out", "small.ledger.csv"), "utf8")).toContain("Recipient not found")
    })
  )

  it.live("run without settings names the variable and the flag (exit 2)", () =>
    Effect.gen(function* () {
      const dir = tempDir("payouts-cli-")
      const file = csv(dir, "x.csv", ["A,5000,XAF,carrier1_cm,+237670000001,Awa Diallo,awa@example.com"])
      const run = yield* cli(["run", file], dir)
      expect(run.code).toBe(2)
      expect(run.stderr).toContain("Missing setting: set PAYOUTS_BASE_URL or pass --base-url")
    })
  )
})
