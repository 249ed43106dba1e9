/**
 * The pool of `payouts watch DIR` workers: the real binary (bin/payouts.js), each a process of its
 * own with its output kept in a log file, started, killed, stopped and resumed by the soak.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createWriteStream } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = join(ROOT, "bin", "payouts.js")

/** The lease TTL the workers run with (FAST timings of test/cli/binarySupport.ts). */
export const LEASE_TTL_MS = 3_000

/** Short timings so a worker sees a whole lifecycle in seconds against a sandbox in real time. */
const FAST = ["--poll-interval", "100ms", "--poll-max", "300ms", "--reconcile-grace", "1s", "--lease-ttl", `${LEASE_TTL_MS}ms`, "--request-timeout", "2s"]

export interface Worker {
  readonly name: string
  readonly proc: ChildProcess
  readonly log: string
  stopped: boolean
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

export interface PoolConfig {
  readonly dir: string
  readonly logs: string
  readonly baseUrl: string
  readonly key: string
  readonly secret: string
  readonly storeUrl: string
  readonly rate: number
}

export const makePool = (config: PoolConfig) => {
  const workers: Array<Worker> = []
  let started = 0
  const args = [
    "watch", config.dir,
    "--scan-every", "200ms", "--settle", "200ms", "--retry-every", "2s", "--concurrency", "4", "--rate", String(config.rate),
    ...FAST
  ]
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PAYOUTS_BASE_URL: config.baseUrl,
    PAYOUTS_API_KEY: config.key,
    PAYOUTS_API_SECRET: config.secret,
    PAYOUTS_STATE: config.storeUrl,
    NO_COLOR: "1"
  }
  const start = (): Worker => {
    const name = `worker-${++started}`
    const log = join(config.logs, `${name}.log`)
    const out = createWriteStream(log)
    const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
    proc.stdout?.pipe(out, { end: false })
    proc.stderr?.pipe(out, { end: false })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
      proc.on("close", (code, signal) => {
        out.end(`\n[soak] ${name} (pid ${proc.pid}) ended: ${code ?? signal}\n`)
        ok({ code, signal })
      })
    )
    const worker: Worker = { name, proc, log, stopped: false, exited }
    workers.push(worker)
    return worker
  }
  const live = () => workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null)
  return {
    env,
    start,
    live,
    all: () => workers as ReadonlyArray<Worker>,
    /** The live worker whose pid is in a lease owner (`host:boot:pid:role`). */
    byOwner: (owner: string) => live().find((w) => owner.split(":").at(-2) === String(w.proc.pid)),
    kill: async (w: Worker) => {
      w.proc.kill("SIGKILL")
      await w.exited
    },
    stop: (w: Worker) => {
      w.stopped = true
      w.proc.kill("SIGSTOP")
    },
    resume: (w: Worker) => {
      w.stopped = false
      w.proc.kill("SIGCONT")
    },
    /** Every worker resumed, asked to stop (SIGTERM), SIGKILLed after `graceMs`. */
    shutdown: async (graceMs: number) => {
      for (const w of live()) {
        if (w.stopped) w.proc.kill("SIGCONT")
        w.proc.kill("SIGTERM")
      }
      const timer = setTimeout(() => live().forEach((w) => w.proc.kill("SIGKILL")), graceMs)
      await Promise.all(workers.map((w) => w.exited))
      clearTimeout(timer)
    }
  }
}

export type Pool = ReturnType<typeof makePool>
