/**
 * The cost curve (issue 15, item 5): how the orchestrator's time and memory grow with batch size.
 * Intake through the real `payouts validate` (10k, 100k, 1M rows) and whole runs at zero latency
 * (10k, 100k payouts, `payouts run`), each in its own process with the RSS probe, so the figures are the CLI's own.
 * Flat means the cost per row of the largest size is within 1.5 of the smallest's, and peak RSS does
 * not grow with the batch (the largest within 1.5 of the smallest). A step where something goes
 * quadratic shows as a per-row ratio far above 1.
 */
import { rmSync } from "node:fs"
import { join } from "node:path"
import { writeCsv } from "./csv.ts"
import { freePort, runMeasuredNode, tempDir, type Figure } from "./measure.ts"
import { spawnSandbox } from "./sandbox.ts"

export type CostRow = Figure

export interface CostPoint {
  readonly rows: number
  readonly seconds: number
  readonly cpuSeconds: number
  readonly maxRssMiB: number
  readonly exitCode: number | null
}

const FUND = { XAF: 100_000_000_000, XOF: 100_000_000_000 }

/** `payouts validate` of an `n`-row file, as a user runs it. */
const intakePoint = async (root: string, n: number): Promise<CostPoint> => {
  const dir = tempDir(`cost-intake-${n}`)
  const sandbox = await spawnSandbox({ fund: FUND })
  try {
    const file = join(dir, "batch.csv")
    await writeCsv(file, { rows: n })
    const cli = await runMeasuredNode(
      ["bin/payouts.js", "validate", file, "--base-url", sandbox.baseUrl, "--api-key", sandbox.key, "--api-secret", sandbox.secret, "--state", join(dir, "state.db"), "--out", join(dir, "out")],
      root
    )
    return { rows: n, seconds: cli.seconds, cpuSeconds: cli.cpuSeconds, maxRssMiB: cli.maxRssKiB / 1024, exitCode: cli.code }
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A whole `payouts run` of `n` payouts (intake, submission, tracking to final, outputs) at zero latency. */
const runPoint = async (root: string, n: number): Promise<CostPoint> => {
  const dir = tempDir(`cost-run-${n}`)
  // Real time with payouts final 10 ms after acceptance: a faster virtual clock would put the service's
  // Date far ahead of ours, and a POST cut off (ECONNRESET on a loaded machine) could never be settled.
  const sandbox = await spawnSandbox({ fund: FUND, payoutDelaySeconds: 0.01, webhookRetryMillis: 200 })
  try {
    const file = join(dir, "batch.csv")
    await writeCsv(file, { rows: n, market: 0, prefix: `cost${n}-` })
    const port = await freePort()
    const cli = await runMeasuredNode(
      [
        "bin/payouts.js", "run", file, "--base-url", sandbox.baseUrl, "--api-key", sandbox.key, "--api-secret", sandbox.secret,
        "--state", join(dir, "state.db"), "--out", join(dir, "out"), "--concurrency", "32", "--poll-interval", "100ms", "--poll-max", "400ms",
        // The least grace the run allows (raised to request timeout + lease time): a POST cut off on a
        // loaded machine is settled from the listing without the default half-hour wait.
        "--reconcile-grace", "0s", "--listen", `127.0.0.1:${port}`
      ],
      root
    )
    if (cli.code !== 0) throw new Error(`payouts run of ${n} exited ${cli.code}: ${cli.stderr.slice(-1500)}`)
    return { rows: n, seconds: cli.seconds, cpuSeconds: cli.cpuSeconds, maxRssMiB: cli.maxRssKiB / 1024, exitCode: cli.code }
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const sizes = (a: CostPoint, b: CostPoint) => `${b.rows.toLocaleString("en")} vs ${a.rows.toLocaleString("en")} rows`

/**
 * Per-row cost at each size and whether it stays flat: `perRow` of the largest against the smallest,
 * and the peak RSS of the largest against the smallest's.
 */
const flatness = (label: string, points: ReadonlyArray<CostPoint>, perRow: (p: CostPoint, i: number) => number, unit: string): Array<CostRow> => {
  const first = points[0]
  const last = points[points.length - 1]
  const rows: Array<CostRow> = points.map((p, i) => ({
    figure: `  ${label} at ${p.rows.toLocaleString("en")} rows`,
    value: perRow(p, i),
    unit,
    bound: undefined,
    boundLabel: `${p.seconds.toFixed(1)} s wall, ${p.cpuSeconds.toFixed(1)} s CPU, ${p.maxRssMiB.toFixed(0)} MiB peak`,
    target: "",
    met: undefined
  }))
  const growth = perRow(last, points.length - 1) / perRow(first, 0)
  const memory = last.maxRssMiB / first.maxRssMiB
  return [
    ...rows,
    { figure: `${label}: per-row cost, ${sizes(first, last)}`, value: perRow(last, points.length - 1), unit, bound: perRow(first, 0), boundLabel: `at ${first.rows.toLocaleString("en")}`, target: "<= 1.5", met: growth <= 1.5 },
    { figure: `${label}: peak RSS, ${sizes(first, last)}`, value: last.maxRssMiB, unit: "MiB", bound: first.maxRssMiB, boundLabel: `MiB at ${first.rows.toLocaleString("en")}`, target: "<= 1.5", met: memory <= 1.5 }
  ]
}

export const benchCost = async (opts: { readonly root: string; readonly intakeSizes: ReadonlyArray<number>; readonly runSizes: ReadonlyArray<number>; readonly log: (text: string) => void }) => {
  const intake: Array<CostPoint> = []
  for (const n of opts.intakeSizes) {
    opts.log(`cost curve: payouts validate of ${n.toLocaleString("en")} rows`)
    intake.push(await intakePoint(opts.root, n))
  }
  const runs: Array<CostPoint> = []
  for (const n of opts.runSizes) {
    opts.log(`cost curve: a run of ${n.toLocaleString("en")} payouts at zero latency`)
    runs.push(await runPoint(opts.root, n))
  }
  // Each step up in size: the CPU it added per added payout (the process's start left out).
  const marginal = (i: number) => ((runs[i].cpuSeconds - runs[i - 1].cpuSeconds) * 1e3) / (runs[i].rows - runs[i - 1].rows)
  const largest = runs[runs.length - 1]
  const perPayout = runs.length > 1 ? marginal(runs.length - 1) : (largest.cpuSeconds * 1e3) / largest.rows
  const rows: Array<CostRow> = [
    // A process's CPU includes its start (module loading, the store, the preflight): the marginal cost
    // of each step up in size, (CPU(n) - CPU(previous)) / (n - previous), is the per-row figure.
    ...flatness("intake (validate), CPU per added row", intake.slice(1), (p, i) => ((p.cpuSeconds - intake[i].cpuSeconds) * 1e6) / (p.rows - intake[i].rows), "us/row"),
    ...flatness("payouts run to final, CPU per payout (whole process)", runs, (p) => (p.cpuSeconds * 1e3) / p.rows, "ms/payout"),
    {
      figure: `orchestrator CPU per added payout (payouts run, ${runs[0].rows.toLocaleString("en")} -> ${largest.rows.toLocaleString("en")})`,
      value: perPayout,
      unit: "ms",
      bound: 1,
      boundLabel: "target 1 ms",
      target: "<= 1.0",
      met: perPayout <= 1
    }
  ]
  return { rows, details: { intake, runs } }
}

// Run directly: `npx tsx scripts/bench/cost.ts [--intake 10000,100000,1000000] [--run 10000,100000]`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const list = (name: string, fallback: string) => {
    const at = process.argv.indexOf(`--${name}`)
    return (at === -1 ? fallback : process.argv[at + 1]).split(",").filter((x) => x !== "").map(Number)
  }
  const root = new URL("../..", import.meta.url).pathname
  const result = await benchCost({ root, intakeSizes: list("intake", "10000,100000,1000000"), runSizes: list("run", "10000,100000"), log: (t) => console.error(`[cost] ${t}`) })
  for (const r of result.rows) console.log(`${r.figure}: ${r.value.toFixed(3)} ${r.unit} ${r.bound === undefined ? "" : `(ratio ${(r.value / r.bound).toFixed(3)} of ${r.bound.toFixed(3)})`} ${r.boundLabel}`)
}
