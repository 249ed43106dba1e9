/**
 * The job folder against files that are not what they seem, through the real binary: a copy that
 * stalls past the settle time and then goes on, a 250-character name, an escape sequence in a name.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { cli, FAST as RUN_FAST } from "../cli/binarySupport.ts"
import { ordinaryPhone } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST, payouts, payoutsDone, serviceOf, until } from "./cli.ts"

const HEADER = "id,amount,currency,operator,phone,name,email"
const rows = (prefix: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${from + i},${1000 + i},XAF,carrier1_cm,${ordinaryPhone(from + i)},Seller ${from + i},s${from + i}@example.com\n`).join("")

/** FAST without its `--settle 0s`: the tests that need a settle time give their own. */
const WATCH = FAST.filter((arg, i) => arg !== "--settle" && FAST[i - 1] !== "--settle")

describe("payouts watch: files that change or have unusual names", () => {
  it.scopedLive("a copy that stalls past --settle and then goes on ends in attention/, and nothing of its second half is paid", () =>
    Effect.gen(function* () {
      // Payouts settle 2 s after they are sent: the run of the first half is still going when the rest lands.
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 2 })
      const root = join(tempDir("payouts-stall-"), "jobs")
      mkdirSync(root, { recursive: true })
      const file = join(root, "stall.csv")
      writeFileSync(file, HEADER + "\n" + rows("FIRST", 1, 6))
      const watch = yield* payouts(serviceOf(sandbox), ["watch", root, ...WATCH, "--settle", "300ms"])
      // The copy holds still (no write) until the watcher takes it; then it goes on.
      yield* until("the stalled file moved to processing/", Effect.sync(() => existsSync(join(root, "processing", "stall.csv"))), 60_000)
      appendFileSync(join(root, "processing", "stall.csv"), rows("LATE", 7, 6))
      yield* until("the batch in attention/", Effect.sync(() => existsSync(join(root, "attention", "stall.csv"))), 90_000)
      expect(readdirSync(join(root, "done"))).toEqual([])
      const note = readFileSync(join(root, "attention", "stall.attention.txt"), "utf8")
      expect(note).toContain("the file changed while it was read: it grew from")
      expect(note).toContain("drop it again into the jobs folder")
      yield* until("the watcher's log line", Effect.sync(() => watch.stderr().includes("the file changed while it was read") || watch.stdout().includes("the file changed while it was read")))
      const paid = yield* admin(sandbox).payouts
      expect(paid.filter((p) => p.description.includes("LATE-"))).toEqual([])
      expect(paid.every((p) => p.description.includes("FIRST-"))).toBe(true)
      watch.child.kill("SIGTERM")
      yield* watch.exit
    }), 180_000)

  it.scopedLive("a file that grows while its run pays pauses the run: no new payout after the change, the batch in attention/", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 600, payoutDelaySeconds: 10 })
      const root = join(tempDir("payouts-grow-"), "jobs")
      mkdirSync(root, { recursive: true })
      writeFileSync(join(root, "grow.csv"), HEADER + "\n" + rows("FIRST", 1, 40))
      // Two payouts a second: the run of 40 rows is still paying when the file grows.
      const watch = yield* payouts(serviceOf(sandbox), ["watch", root, ...WATCH, "--settle", "300ms", "--rate", "2"])
      const firstPaid = Effect.map(admin(sandbox).payouts, (paid) => paid.length)
      yield* until("a first payout of the file", Effect.map(firstPaid, (n) => n >= 2), 60_000)
      appendFileSync(join(root, "processing", "grow.csv"), rows("LATE", 41, 2))
      yield* until("the batch in attention/", Effect.sync(() => existsSync(join(root, "attention", "grow.csv"))), 90_000)
      const paid = yield* admin(sandbox).payouts
      expect(paid.filter((p) => p.description.includes("LATE-"))).toEqual([])
      // Paused at the change: the rest of the 40 rows was never sent.
      expect(paid.length).toBeLessThan(40)
      expect(readFileSync(join(root, "attention", "grow.attention.txt"), "utf8")).toContain("the file changed while it was read: it grew from")
      watch.child.kill("SIGTERM")
      yield* watch.exit
    }), 180_000)

  it.scopedLive("a 250-character file name is paid and ends in done/ with its ledger; payouts run writes its outputs", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 600, payoutDelaySeconds: 10 })
      const root = join(tempDir("payouts-long-"), "jobs")
      mkdirSync(root, { recursive: true })
      const name = `${"payouts-of-the-month-".repeat(12)}x`.slice(0, 246) + ".csv"
      expect(name.length).toBe(250)
      writeFileSync(join(root, name), HEADER + "\n" + rows("LONG", 1, 3))
      const watched = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...FAST])
      expect(watched.code, watched.output).toBe(0)
      const done = readdirSync(join(root, "done"))
      const ledger = done.find((n) => n.endsWith(".ledger.csv"))
      expect(ledger, done.join(", ")).toBeDefined()
      expect(done.some((n) => n.endsWith(".csv") && !n.endsWith(".ledger.csv"))).toBe(true)
      for (const n of done) expect(Buffer.byteLength(n), n).toBeLessThanOrEqual(255)
      // The shortened name keeps a readable start and a short hash of the whole name.
      expect(ledger).toMatch(/^payouts-of-the-month-payouts-of-the-month-.*-[0-9a-f]{10}\.ledger\.csv$/)
      expect(readFileSync(join(root, "done", ledger ?? ""), "utf8")).toContain("LONG-3")

      const dir = tempDir("payouts-long-run-")
      const file = join(dir, name.replace("payouts-of", "run-of"))
      writeFileSync(file, HEADER + "\n" + rows("RUNLONG", 10, 3))
      const ran = yield* cli(sandbox, join(dir, "state.db"), ["run", file, ...RUN_FAST])
      expect(ran.code, ran.stdout + ran.stderr).toBe(0)
      const outputs = readdirSync(dir)
      expect(outputs.filter((n) => n.endsWith(".ledger.csv") || n.endsWith(".summary.json"))).toHaveLength(2)
    }), 180_000)

  it.scopedLive("an escape sequence in a file name never reaches the log raw: it is written <U+001B>", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 600, payoutDelaySeconds: 10 })
      const root = join(tempDir("payouts-esc-"), "jobs")
      mkdirSync(root, { recursive: true })
      writeFileSync(join(root, "\u001b[31mred.csv"), HEADER + "\n" + rows("ESC", 1, 2))
      for (const format of ["text", "json"]) {
        const watched = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...FAST, "--log-format", format])
        expect(watched.code, watched.output).toBe(0)
        expect(watched.output.includes("\u001b"), `${format}: ${watched.output}`).toBe(false)
        if (format === "text") expect(watched.output).toContain("<U+001B>[31mred.csv")
        writeFileSync(join(root, "\u001b[31mred.csv"), HEADER + "\n" + rows("ESC", 10, 2))
      }
    }), 180_000)
})
