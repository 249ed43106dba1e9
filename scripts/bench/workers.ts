/**
 * A pool of `payouts watch` workers for the bench: a build's binary (bin/payouts.js) as child processes
 * on one job folder and one PostgreSQL store, each given the account's `--rate`. The batches are
 * dropped into the folder at once (renamed in, so each appears complete) once every worker watches;
 * the run ends when every file is in done/ (or rejected/).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import { writeCsv } from "./csv.ts"
import { type Build, sleep, tempDir } from "./measure.ts"
import type { SandboxProcess } from "./sandbox.ts"

export interface WorkersRun {
  readonly build: Build
  readonly sandbox: SandboxProcess
  /** postgres://...?schema=NAME */
  readonly state: string
  readonly workers: number
  readonly batches: number
  readonly rowsPerBatch: number
  /** The account's limit, given to every worker as `--rate`. */
  readonly rate: number
  readonly concurrency: number
  readonly timeoutMs: number
  /** Part of every row id: runs on one store never repeat each other's rows. */
  readonly tag?: string
}

export interface WorkersResult {
  /** Wall clock (ms since epoch) when the files were dropped and when the last reached done/. */
  readonly droppedAt: number
  readonly doneAt: number
  readonly done: number
  readonly rejected: number
  readonly timedOut: boolean
  /** Each worker's exit code after SIGTERM, and the tail of its output. */
  readonly exits: ReadonlyArray<number | null>
  readonly outputTails: ReadonlyArray<string>
}

interface Worker {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** Options of every worker: the limit, short scan, settle and poll timings (no webhooks: tracked by polling). */
export const workerArgs = (dir: string, run: Pick<WorkersRun, "rate" | "concurrency">) => [
  "watch",
  dir,
  "--scan-every",
  "200ms",
  "--settle",
  "200ms",
  "--rate",
  String(run.rate),
  "--concurrency",
  String(run.concurrency),
  "--poll-interval",
  "100ms",
  "--poll-max",
  "400ms"
]

const startWorker = (run: WorkersRun, dir: string): Worker => {
  const { PAYOUTS_STATE: _state, ...inherited } = process.env
  const child = spawn(process.execPath, ["bin/payouts.js", ...workerArgs(dir, run)], {
    cwd: run.build.dir,
    env: {
      ...inherited,
      PAYOUTS_BASE_URL: run.sandbox.baseUrl,
      PAYOUTS_API_KEY: run.sandbox.key,
      PAYOUTS_API_SECRET: run.sandbox.secret,
      PAYOUTS_STATE: run.state
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  // Keep the start (the "watching" line) and a tail for the report; a long run logs a lot.
  const keep = (d: unknown) => {
    out += String(d)
    if (out.length > 64_000) out = `${out.slice(0, 4_000)}\n...\n${out.slice(-32_000)}`
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  return { child, output: () => out, exited }
}

const waitFor = async (what: string, check: () => boolean, timeoutMs: number) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

const stop = async (w: Worker) => {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return w.exited
  w.child.kill("SIGTERM")
  const code = await Promise.race([w.exited, sleep(20_000).then(() => "late" as const)])
  if (code !== "late") return code
  w.child.kill("SIGKILL")
  return w.exited
}

const csvIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^batch-\d+\.csv$/.test(f)).length : 0)

/**
 * Batch b pays the numbers of market b (mod 4: two XAF, two XOF markets of scripts/bench/csv.ts), so
 * no row repeats another batch's (same phone and amount) and two batches can run at once, one per
 * currency, as "one batch per currency at a time" allows.
 */
export const runWorkers = async (run: WorkersRun, onDropped: () => void = () => undefined): Promise<WorkersResult> => {
  const dir = tempDir(`workers${run.workers}-${run.build.label}`)
  const staging = join(dir, "..", `${dir.split("/").at(-1)}-staging`)
  mkdirSync(staging, { recursive: true })
  const workers: Array<Worker> = []
  try {
    for (let b = 0; b < run.batches; b++) {
      await writeCsv(join(staging, `batch-${b}.csv`), { rows: run.rowsPerBatch, market: b % 4, prefix: `W${run.workers}${run.build.label}${run.tag ?? ""}B${b}-` })
    }
    for (let i = 0; i < run.workers; i++) workers.push(startWorker(run, dir))
    // Every worker up and watching before the files arrive.
    await waitFor("every worker watching", () => workers.every((w) => /watching /.test(w.output()) || w.child.exitCode !== null), 180_000)
    const dead = workers.findIndex((w) => w.child.exitCode !== null)
    if (dead !== -1) throw new Error(`worker ${dead} exited at start (${workers[dead].child.exitCode}): ${workers[dead].output().slice(-2_000)}`)
    const droppedAt = Date.now()
    onDropped()
    for (let b = 0; b < run.batches; b++) renameSync(join(staging, `batch-${b}.csv`), join(dir, `batch-${b}.csv`))
    const finished = () => csvIn(join(dir, "done")) + csvIn(join(dir, "rejected"))
    let timedOut = false
    try {
      await waitFor(`${run.batches} batches in done/ (${dir})`, () => finished() >= run.batches || workers.every((w) => w.child.exitCode !== null), run.timeoutMs)
    } catch {
      timedOut = true
    }
    const doneAt = Date.now()
    const exits = await Promise.all(workers.map(stop))
    return {
      droppedAt,
      doneAt,
      done: csvIn(join(dir, "done")),
      rejected: csvIn(join(dir, "rejected")),
      timedOut,
      exits,
      outputTails: workers.map((w) => w.output().slice(-3_000))
    }
  } finally {
    await Promise.all(workers.map(stop))
    rmSync(dir, { recursive: true, force: true })
    rmSync(staging, { recursive: true, force: true })
  }
}
