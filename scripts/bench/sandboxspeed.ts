/**
 * How fast the sandbox serves payouts on its own: a plain keep-alive HTTP loop (`httpLoop`) POSTing
 * payouts at concurrency 32 to a sandbox in its own process, with the sandbox's CPU time read from
 * /proc/<pid>/stat around each timed loop (without /proc that figure is left out). Two cases:
 * - whole payouts: time scale 1,000, so each payout reaches its outcome ~10 ms later and its webhook
 *   goes out while the loop runs; the cost per request is the whole cost of a payout;
 * - POSTs only: outcomes a day away, so only the requests themselves are counted.
 * Webhooks go to a receiver in this process (a merchant's, elsewhere), not the sandbox child's sink.
 *
 *   npx tsx scripts/bench/sandboxspeed.ts [--seconds 5] [--runs 3]
 */
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import type { SandboxOptions } from "../../src/sandbox/Sandbox.ts"
import { httpLoop } from "./load.ts"
import { round, type Figure } from "./measure.ts"
import { spawnSandbox } from "./sandbox.ts"

export type SpeedRow = Figure

const TARGET = 3_000
const CONCURRENCY = 32
const FUND = { XAF: 100_000_000_000, XOF: 100_000_000_000 }

/** User + system CPU milliseconds of a process (all its threads), or undefined without /proc. */
export const processCpuMs = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[11]) + Number(fields[12])
    return (ticks * 1000) / 100
  } catch {
    return undefined
  }
}

export interface SpeedRun {
  readonly requests: number
  readonly ok: number
  readonly seconds: number
  readonly perSecond: number
  /** Sandbox CPU milliseconds per request, when /proc can be read. */
  readonly cpuMsPerRequest: number | undefined
  /** Requests one fully busy core of sandbox would serve per second: 1000 / cpuMsPerRequest. */
  readonly perCoreSecond: number | undefined
}

const receiver = async () => {
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(204).end())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  return { url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/webhooks`, close: () => server.close() }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** `runs` timed loops of `seconds` against one warmed-up sandbox started with `options`. */
const measureCase = async (name: string, options: SandboxOptions, sinkUrl: string, seconds: number, runs: number, log: (line: string) => void) => {
  const results: Array<SpeedRun> = []
  const spawned = await spawnSandbox({ fund: FUND, ...options })
  const sandbox = { ...spawned, sinkUrl }
  try {
    // A fresh process runs cold (JIT, first allocations): warm the payout path first, not counted.
    await httpLoop(sandbox, 8, 1)
    for (let i = 0; i < runs; i++) {
      const before = processCpuMs(sandbox.pid)
      const loop = await httpLoop(sandbox, CONCURRENCY, seconds)
      const after = processCpuMs(sandbox.pid)
      const cpuMsPerRequest = before === undefined || after === undefined ? undefined : (after - before) / loop.requests
      results.push({ ...loop, cpuMsPerRequest, perCoreSecond: cpuMsPerRequest === undefined ? undefined : 1000 / cpuMsPerRequest })
      log(
        `${name}, run ${i + 1}: ${loop.requests} requests (${loop.ok} answered 200) in ${round(loop.seconds)} s = ${round(loop.perSecond)} req/s; ` +
        `sandbox CPU ${cpuMsPerRequest === undefined ? "?" : round(cpuMsPerRequest, 3)} ms/request; load average ${loadavg().map((x) => round(x)).join(" ")}`
      )
    }
  } finally {
    await sandbox.stop()
  }
  const cpu = results.every((r) => r.cpuMsPerRequest !== undefined) ? median(results.map((r) => r.cpuMsPerRequest ?? 0)) : undefined
  return { wall: median(results.map((r) => r.perSecond)), cpu, refused: results.reduce((n, r) => n + r.requests - r.ok, 0), runs: results.length }
}

const perCoreRow = (label: string, cpu: number | undefined): SpeedRow => ({
  figure: `sandbox payout POSTs/s per core, ${label} (1000 / sandbox CPU ms per request; plain HTTP loop, concurrency ${CONCURRENCY})`,
  value: cpu === undefined ? Number.NaN : 1000 / cpu,
  unit: "req/s",
  bound: TARGET,
  boundLabel: "goal 3,000/s on one core",
  target: ">= 1.0",
  met: cpu === undefined ? undefined : 1000 / cpu >= TARGET
})

const cpuRow = (label: string, cpu: number | undefined): SpeedRow => ({
  figure: `sandbox CPU per payout request, ${label}`,
  value: cpu ?? Number.NaN,
  unit: "ms",
  bound: 1000 / TARGET,
  boundLabel: "1 core / 3,000",
  target: "<= 1.0",
  met: cpu === undefined ? undefined : cpu <= 1000 / TARGET
})

export const benchSandboxSpeed = async (opts: { seconds: number; runs?: number; log?: (line: string) => void }): Promise<Array<SpeedRow>> => {
  const log = opts.log ?? ((line: string) => console.error(`[sandboxspeed] ${line}`))
  const runs = opts.runs ?? 3
  const sink = await receiver()
  try {
    const whole = await measureCase("whole payouts", { timeScale: 1_000 }, sink.url, opts.seconds, runs, log)
    const posts = await measureCase("POSTs only", { payoutDelaySeconds: 86_400 }, sink.url, opts.seconds, runs, log)
    return [
      perCoreRow("whole payouts (outcome and webhook included)", whole.cpu),
      cpuRow("whole payouts", whole.cpu),
      perCoreRow("POSTs only", posts.cpu),
      cpuRow("POSTs only", posts.cpu),
      {
        figure: `sandbox payout POSTs/s answered, wall clock, whole payouts (the loop shares the 2 cores; median of ${whole.runs})`,
        value: whole.wall,
        unit: "req/s",
        bound: TARGET,
        boundLabel: "goal 3,000/s",
        target: ">= 1.0",
        met: whole.wall >= TARGET
      },
      {
        figure: "payout POSTs not answered 200 (no faults, no latency injected)",
        value: whole.refused + posts.refused,
        unit: "",
        bound: undefined,
        boundLabel: "",
        target: "0",
        met: whole.refused + posts.refused === 0
      }
    ]
  } finally {
    sink.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2)
  const flag = (name: string, fallback: number) => {
    const at = argv.indexOf(`--${name}`)
    return at === -1 ? fallback : Number(argv[at + 1])
  }
  const rows = await benchSandboxSpeed({ seconds: flag("seconds", 5), runs: flag("runs", 3) })
  for (const r of rows) {
    console.log(`${r.figure}: ${round(r.value, 3)} ${r.unit}${r.bound === undefined ? "" : ` (${round(r.value / r.bound, 3)} of ${r.boundLabel})`}${r.met === undefined ? "" : r.met ? " met" : " MISSED"}`)
  }
}
