/** The real binary against a real sandbox: one command to its end, or a run left going in the background. */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Sandbox } from "../kit/Sandbox.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

export interface Finished {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** `payouts ARGS` against the sandbox, with its own store; the handle's `exit` ends with what it printed. */
export const start = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      PAYOUTS_BASE_URL: sandbox.baseUrl,
      PAYOUTS_API_KEY: sandbox.key,
      PAYOUTS_API_SECRET: sandbox.secret,
      PAYOUTS_STATE: state,
      NO_COLOR: "1",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout?.on("data", (d) => (stdout += d))
  child.stderr?.on("data", (d) => (stderr += d))
  const exited = new Promise<Finished>((ok) => child.on("close", (code) => ok({ code: code ?? -1, stdout, stderr })))
  return { child, output: () => stdout + stderr, exit: Effect.promise(() => exited) }
}

/** Runs a command to its end; a process still going when the test ends is killed. */
export const cli = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.acquireUseRelease(
    Effect.sync(() => start(sandbox, state, args, env)),
    (p) => p.exit,
    (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
  )

/** Waits for a condition, polling; dies with `what` after the timeout. */
export const until = (what: string, check: Effect.Effect<boolean>, timeoutMs = 60_000) =>
  Effect.gen(function* () {
    const began = Date.now()
    while (!(yield* check)) {
      if (Date.now() - began > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

/** Short timings so a run against the sandbox (time scale 1, payouts settled after 1 s) ends quickly. */
export const FAST = ["--poll-interval", "100ms", "--poll-max", "300ms", "--reconcile-grace", "1s", "--lease-ttl", "3s", "--request-timeout", "2s"]
