/** The real `payouts` binary for job-folder tests: a child process, its output, its exit code. */
import { type ChildProcess, spawn } from "node:child_process"
import { Effect } from "effect"
import { createServer } from "node:net"
import { resolve } from "node:path"
import type { Sandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const BIN = resolve("bin/payouts.js")

/** The default store of these children (no PAYOUTS_STATE): one per test file, never the user's own. */
const STATE_HOME = tempDir("payouts-state-home-")

/** Timings that keep a test short; the rest as a user would run it. */
export const FAST = ["--poll-interval", "100ms", "--poll-max", "400ms", "--reconcile-grace", "2s", "--lease-ttl", "3s", "--request-timeout", "2s", "--settle", "0s", "--scan-every", "200ms"]

export interface Proc {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exit: Effect.Effect<number | null>
}

export interface Service {
  readonly baseUrl: string
  readonly key: string
  readonly secret: string
}

export const serviceOf = (sandbox: Sandbox): Service => ({ baseUrl: sandbox.baseUrl, key: sandbox.key, secret: sandbox.secret })

/** Starts `payouts ARGS` against `service` (killed when the scope closes, if still running). */
export const payouts = (service: Service, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.acquireRelease(
    Effect.sync((): Proc => {
      const { PAYOUTS_STATE: _s, PAYOUTS_APPROVERS: _a, PAYOUTS_SUBMITTED_BY: _b, ...inherited } = process.env
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { ...inherited, PAYOUTS_BASE_URL: service.baseUrl, PAYOUTS_API_KEY: service.key, PAYOUTS_API_SECRET: service.secret, XDG_STATE_HOME: STATE_HOME, ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      child.stdout?.on("data", (d) => (out += d))
      child.stderr?.on("data", (d) => (err += d))
      const exited = new Promise<number | null>((ok) => child.on("close", (code) => ok(code)))
      return { child, stdout: () => out, stderr: () => err, exit: Effect.promise(() => exited) }
    }),
    (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
  )

/** Runs `payouts ARGS` to its end: exit code and output. */
export const payoutsDone = (service: Service, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const p = yield* payouts(service, args, env)
      const code = yield* p.exit
      return { code, stdout: p.stdout(), stderr: p.stderr(), output: `${p.stdout()}${p.stderr()}` }
    })
  )

export const until = (what: string, check: Effect.Effect<boolean>, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const start = Date.now()
    while (!(yield* check)) {
      if (Date.now() - start > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

/** The URL `watch --health HOST:0` logged once it bound its port (text or JSON logs). */
export const healthUrl = (output: () => string) =>
  Effect.gen(function* () {
    yield* until("the health endpoint's URL in the log", Effect.sync(() => HEALTH_AT.test(output())))
    return HEALTH_AT.exec(output())?.[1] ?? ""
  })

const HEALTH_AT = /health endpoint at (http:\/\/[^\s"]+\/health)/

/** A port nothing listens on (bound to 0, then closed): for a service that cannot be reached, never to listen on. */
export const closedPort = Effect.promise(
  () =>
    new Promise<number>((ok) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const port = (server.address() as { port: number }).port
        server.close(() => ok(port))
      })
    })
)
