/**
 * A paused runner (Ctrl-Z, a closed laptop lid, a paused VM) through the real binary: `payouts run`
 * at --rate 1 is stopped with SIGSTOP while payouts wait behind the rate gate, a second runner takes
 * the batch over after the lease expired and finishes, then the first is resumed with SIGCONT. The
 * first must send nothing it no longer owns; a third run pays what it released; nobody paid twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { join, resolve } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const BIN = resolve("bin/payouts.js")

const start = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>) => {
  const env = { ...process.env, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_STATE: state, NO_COLOR: "1" }
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout?.on("data", (d) => (out += d))
  child.stderr?.on("data", (d) => (out += d))
  const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)))
  return { child, out: () => out, exit: Effect.promise(() => exited) }
}

const until = (what: string, check: Effect.Effect<boolean>, timeoutMs = 60_000) =>
  Effect.gen(function* () {
    const began = Date.now()
    while (!(yield* check)) {
      if (Date.now() - began > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

const COMMON = ["--lease-ttl", "2s", "--request-timeout", "2s", "--poll-interval", "100ms", "--poll-max", "300ms", "--reconcile-grace", "1s", "--reconcile-deadline", "6s"]

describe("a paused runner (SIGSTOP past its lease, SIGCONT after another finished)", () => {
  it.scopedLive(
    "sends nothing it no longer owns; what it never sent is paid once by a later run",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-pause-")
        const state = join(dir, "state.db")
        const rows = Array.from({ length: 20 }, (_, i) => ({ id: `P-${i + 1}`, amount: String(3000 + i), phone: ordinaryPhone(400 + i) }))
        const file = writeCsv(dir, "pause.csv", rows)
        const sent = Effect.map(admin(sandbox).payouts, (p) => p.length)

        const first = start(sandbox, state, ["run", file, "--rate", "1", "--concurrency", "8", ...COMMON])
        yield* Effect.addFinalizer(() => Effect.sync(() => first.child.exitCode === null && first.child.kill("SIGKILL")))
        yield* until("the first payouts", Effect.map(sent, (n) => n >= 3))
        first.child.kill("SIGSTOP")
        const atStop = yield* sent
        expect(atStop).toBeLessThan(8)
        yield* Effect.sleep("3 seconds")

        const second = start(sandbox, state, ["run", file, ...COMMON])
        const secondExit = yield* second.exit
        // Paused inside a write transaction, the first runner holds SQLite's lock: the second waits for
        // it, then gives up (exit 4, the store is unusable) without sending anything.
        const tookOver = secondExit !== 4
        if (tookOver) {
          // The rows the paused runner claimed but never sent cannot be proven unsent: they wait for a person.
          expect([0, 5], second.out()).toContain(secondExit)
        } else expect(second.out()).toContain("locked by another process")
        const afterSecond = yield* sent

        first.child.kill("SIGCONT")
        const firstExit = yield* first.exit
        if (tookOver) {
          expect(firstExit, first.out()).toBe(3)
          // Woken past its lease, the first runner sent nothing more.
          expect(yield* sent).toBe(afterSecond)
        }

        const third = start(sandbox, state, ["run", file, ...COMMON])
        expect(yield* third.exit, third.out()).toBe(0)
        const counts = countByToken(yield* admin(sandbox).payouts)
        expect(counts.size).toBe(20)
        expect([...counts.values()].every((n) => n === 1)).toBe(true)
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
      }),
    300_000
  )
})
