/** The daemon as a process: killed with SIGKILL mid-batch and restarted, stopped with SIGTERM, health and JSON logs. */
import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { Effect } from "effect"
import { existsSync, mkdirSync, readdirSync } from "node:fs"
import { join, resolve } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox, type Sandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { healthUrl } from "./cli.ts"

const BIN = resolve("bin/payouts.js")
const FAST = ["--poll-interval", "100ms", "--poll-max", "400ms", "--reconcile-grace", "2s", "--lease-ttl", "3s", "--request-timeout", "2s", "--settle", "0s", "--scan-every", "200ms", "--concurrency", "2"]

interface Proc {
  readonly child: ChildProcess
  readonly out: () => string
  readonly exit: Effect.Effect<number | null>
}

const payouts = (sandbox: Sandbox, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync((): Proc => {
      const { PAYOUTS_STATE: _ignored, ...inherited } = process.env
      const env = { ...inherited, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret }
      const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout?.on("data", (d) => (out += d))
      child.stderr?.on("data", (d) => (out += d))
      const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)))
      return { child, out: () => out, exit: Effect.promise(() => exited) }
    }),
    (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
  )

const until = (what: string, check: Effect.Effect<boolean>, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const start = Date.now()
    while (!(yield* check)) {
      if (Date.now() - start > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

const sellers = (n: number, prefix: string, offset: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(offset + i) }))

describe("payouts watch as a daemon", () => {
  it.scopedLive("SIGKILL mid-batch then restart: the batch finishes with no double payment; SIGTERM shuts down gracefully; health and JSON logs", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.latency=40ms-70ms" })
      const root = join(tempDir("payouts-daemon-"), "jobs")
      mkdirSync(root, { recursive: true })
      const sent = Effect.map(admin(sandbox).payouts, (p) => p.length)

      // 1. --once, killed with SIGKILL once some payouts exist.
      writeCsv(root, "first.csv", sellers(50, "K", 0))
      const killed = yield* payouts(sandbox, ["watch", root, "--once", ...FAST])
      yield* until("payouts of the first batch", Effect.map(sent, (n) => n >= 8))
      killed.child.kill("SIGKILL")
      yield* killed.exit
      const atKill = yield* sent
      expect(atKill).toBeLessThan(50)
      expect(readdirSync(join(root, "processing"))).toContain("first.csv")

      // 2. The daemon: resumes processing/, answers /health, logs JSON; SIGTERM mid-batch exits 0.
      const daemon = yield* payouts(sandbox, ["watch", root, ...FAST, "--log-format", "json", "--health", "127.0.0.1:0", "--health-every", "500ms"])
      const url = yield* healthUrl(daemon.out)
      yield* until("the first batch done", Effect.sync(() => existsSync(join(root, "done", "first.summary.json"))), 120_000)
      const health = Effect.promise(() => fetch(url).then(async (r) => ({ status: r.status, body: await r.json() })))
      // The files reach done/ a moment before the watcher counts the batch done.
      yield* until("health counting the batch done", Effect.map(health, (h) => h.body.done === 1))
      const answer = yield* health
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ status: "ok", done: 1 })
      const afterFirst = countByToken(yield* admin(sandbox).payouts)
      expect(afterFirst.size).toBe(50)
      expect([...afterFirst.values()].every((n) => n === 1)).toBe(true)
      writeCsv(root, "second.csv", sellers(50, "T", 100))
      yield* until("payouts of the second batch", Effect.map(sent, (n) => n >= 58))
      expect(yield* sent).toBeLessThan(100)
      daemon.child.kill("SIGTERM")
      expect(yield* daemon.exit).toBe(0)
      expect(readdirSync(join(root, "processing"))).toContain("second.csv")
      const lines = daemon.out().trim().split("\n").filter((l) => l.startsWith("{"))
      expect(lines.length).toBeGreaterThan(3)
      const records = lines.map((l) => JSON.parse(l))
      expect(records.some((r) => r.message === "health")).toBe(true)
      expect(records.some((r) => String(r.message).startsWith("done (exit 0)"))).toBe(true)

      // 3. --once again: the second batch is finished; every row paid exactly once.
      const again = yield* payouts(sandbox, ["watch", root, "--once", ...FAST])
      expect(yield* again.exit).toBe(0)
      expect(readdirSync(join(root, "done"))).toContain("second.csv")
      expect(readdirSync(join(root, "processing"))).toEqual([])
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect(counts.size).toBe(100)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
    }),
    300_000
  )
})
