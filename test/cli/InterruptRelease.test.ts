/**
 * Stop means stop cleanly (issue 31, item 1), through the real binary: Ctrl-C under a pseudo-terminal
 * and SIGTERM, at several moments. Every row claimed and never sent goes back to validated and the
 * run says how many; the same command again pays them at once (default 30m reconcile grace: a row
 * left in doubt would make it wait), each row exactly once, none ever unknown.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import { ordinaryPhone, readLedger, writeCsv } from "../run/support.ts"
import { accountOf, admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, start, until } from "./binarySupport.ts"

const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

/** `payouts ARGS` under a pseudo-terminal; `ctrlC` types the terminal's interrupt key. */
const underTerminal = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const command = `exec ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(" ")}`
      const child: ChildProcess = spawn("script", ["-qfec", command, "/dev/null"], {
        env: { ...process.env, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_STATE: state, NO_COLOR: "1" },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let output = ""
      child.stdout?.on("data", (d) => (output += d))
      child.stderr?.on("data", (d) => (output += d))
      const exited = new Promise<number>((ok) => child.on("close", (code) => ok(code ?? -1)))
      return { child, output: () => output, ctrlC: () => child.stdin?.write("\x03"), exit: Effect.promise(() => exited) }
    }),
    (t) => Effect.sync(() => t.child.exitCode === null && t.child.kill("SIGKILL"))
  )

const ROWS = 16
const batch = (dir: string, name: string) =>
  writeCsv(dir, name, Array.from({ length: ROWS }, (_, i) => ({ id: `S${i}`, amount: String(1000 + i), phone: ordinaryPhone(i) })))

/** Slow sending: 8 rows claimed at once, 2 sent a second, so most claimed rows wait for a rate slot. */
const args = (file: string) => ["run", file, "--yes", "--rate", "2", "--concurrency", "8", "--poll-interval", "100ms", "--poll-max", "300ms"]

const RELEASED = /Released (\d+) row/

/** The run holds its batch's lease: past intake, into the run's steps (the pre-scan comes next). */
const leased = (sandbox: Sandbox, state: string) =>
  Effect.flatMap(StateStore, (store) => store.account(accountOf(sandbox)).listBatches()).pipe(
    Effect.map((batches) => batches.some((b) => b.leaseOwner !== null)),
    Effect.provide(withHandles(SqliteStateStore.layer({ filename: state }))),
    Effect.orElseSucceed(() => false)
  )

const payoutsOf = (sandbox: Sandbox) => Effect.map(admin(sandbox).payouts, (p) => p.length)

/** The first run's ledger: no row left claimed or in doubt. */
const expectNothingInDoubt = (dir: string, name: string) => {
  const statuses = readLedger(join(dir, `${name}.ledger.csv`)).map((r) => r.status)
  expect(statuses).toHaveLength(ROWS)
  expect(statuses.filter((s) => s === "submitting" || s === "unknown")).toEqual([])
}

/** The same command again: exit 0 without waiting for a grace, every row paid exactly once. */
const rerunPaysAll = (sandbox: Sandbox, state: string, file: string) =>
  Effect.gen(function* () {
    const again = yield* cli(sandbox, state, args(file))
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).not.toMatch(/unknown [1-9]|grace|in doubt/i)
    const counts = countByToken(yield* admin(sandbox).payouts)
    expect(counts.size).toBe(ROWS)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
  })

describe("stopping a run (the binary)", () => {
  it.scopedLive("Ctrl-C mid-run, rows waiting for their rate slot: released and said, then paid at once by the same command", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-stop-")
      const file = batch(dir, "ctrlc.csv")
      const state = join(dir, "state.db")
      const first = yield* underTerminal(sandbox, state, args(file))
      yield* until("two payouts sent", Effect.map(payoutsOf(sandbox), (n) => n >= 2), 90_000)
      first.ctrlC()
      expect(yield* first.exit, first.output()).toBe(3)
      const released = Number(RELEASED.exec(first.output())?.[1] ?? "-1")
      // Claimed 8 (and 8 ahead) at 2 a second: rows were waiting when Ctrl-C came.
      expect(released, first.output()).toBeGreaterThan(0)
      const sent = yield* payoutsOf(sandbox)
      expect(sent + released).toBeLessThanOrEqual(ROWS)
      expectNothingInDoubt(dir, "ctrlc")
      yield* rerunPaysAll(sandbox, state, file)
    }), 180_000)

  it.scopedLive("Ctrl-C before the first payout (the pre-scan still reading the listing): nothing sent, 0 released, then paid", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-stop-")
      const file = batch(dir, "early.csv")
      const state = join(dir, "state.db")
      yield* admin(sandbox).faults("transactions.latency=20s-20s")
      const first = yield* underTerminal(sandbox, state, args(file))
      yield* until("the run to open its store", Effect.sync(() => first.output().includes("State store:")), 90_000)
      yield* until("the run to take its batch's lease", leased(sandbox, state), 90_000)
      first.ctrlC()
      expect(yield* first.exit, first.output()).toBe(3)
      expect(first.output()).toMatch(/Interrupted before this run sent any payout\. Released 0 rows/)
      expect(yield* payoutsOf(sandbox)).toBe(0)
      yield* admin(sandbox).faults("")
      yield* rerunPaysAll(sandbox, state, file)
    }), 180_000)

  it.scopedLive("SIGTERM mid-run (systemctl stop): the same clean stop", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-stop-")
      const file = batch(dir, "term.csv")
      const state = join(dir, "state.db")
      const first = yield* Effect.acquireRelease(
        Effect.sync(() => start(sandbox, state, args(file))),
        (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
      )
      yield* until("three payouts sent", Effect.map(payoutsOf(sandbox), (n) => n >= 3), 90_000)
      first.child.kill("SIGTERM")
      const ended = yield* first.exit
      expect(ended.code, ended.stderr).toBe(3)
      expect(Number(RELEASED.exec(ended.stderr)?.[1] ?? "-1"), ended.stderr).toBeGreaterThan(0)
      expectNothingInDoubt(dir, "term")
      yield* rerunPaysAll(sandbox, state, file)
    }), 180_000)
})
