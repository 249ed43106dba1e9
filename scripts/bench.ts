/**
 * `npm run bench`: the figures of docs/PERFORMANCE.md, each against its bound, in one run. The sandbox
 * runs in a separate process; the orchestrator runs in this one, wired as `payouts run` wires it;
 * `payouts validate` runs as the real CLI in a child process. Prints a table and writes
 * bench/results/<date>.json (and latest.json).
 *
 *   npm run bench [-- --only latency,rate,overhead,tracking,validate] [--validate-rows N] [--quick]
 */
import { cpus, loadavg, release, totalmem } from "node:os"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { writeCsv } from "./bench/csv.ts"
import { bareParse, barePhones, httpLoop } from "./bench/load.ts"
import { counterAt, freePort, round, runMeasuredNode, sampleCounters, tempDir } from "./bench/measure.ts"
import { runOrchestrator, type OrchestratorTimes } from "./bench/orchestrator.ts"
import { spawnSandbox } from "./bench/sandbox.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const argv = process.argv.slice(2)
const flag = (name: string) => {
  const at = argv.indexOf(`--${name}`)
  return at === -1 ? undefined : argv[at + 1]
}
const quick = argv.includes("--quick")
const only = new Set((flag("only") ?? "latency,rate,overhead,tracking,validate").split(","))
const scale = (n: number) => (quick ? Math.max(100, Math.round(n / 10)) : n)
const FUND = { XAF: 100_000_000_000, XOF: 100_000_000_000 }

interface Row {
  readonly section: string
  readonly figure: string
  readonly value: number
  readonly unit: string
  readonly bound: number | undefined
  readonly boundLabel: string
  readonly target: string
  readonly ratio: number | undefined
  readonly met: boolean | undefined
}

const rows: Array<Row> = []
const details: Record<string, unknown> = {}
const row = (r: Omit<Row, "ratio"> & { ratio?: number }) => {
  const ratio = r.ratio ?? (r.bound === undefined ? undefined : r.value / r.bound)
  rows.push({ ...r, value: round(r.value), bound: r.bound === undefined ? undefined : round(r.bound), ratio: ratio === undefined ? undefined : round(ratio, 3) })
  console.error(`  ${r.figure}: ${round(r.value)} ${r.unit}${ratio === undefined ? "" : ` (${round(ratio, 3)} of ${round(r.bound ?? 0)})`}`)
}

const log = (text: string) => console.error(`[bench] ${text}`)
const perSecond = (n: number, fromMs: number, toMs: number) => (n * 1000) / Math.max(1, toMs - fromMs)
const phases = (t: OrchestratorTimes) => ({
  ...t,
  intakeSeconds: round((t.firstIntentAt - t.startedAt) / 1000),
  submitSeconds: round((t.lastSubmittedAt - t.firstIntentAt) / 1000),
  finalSeconds: round((t.lastFinalAt - t.firstIntentAt) / 1000),
  totalSeconds: round((t.endedAt - t.startedAt) / 1000)
})

/** A batch of `n` payouts through a fresh sandbox process with `sandboxOptions`. */
const batchRun = async (name: string, n: number, sandboxOptions: { readonly faults?: string; readonly timeScale?: number }, run: { concurrency: number; rate?: number; pollIntervalMs?: number; listen?: boolean }) => {
  const dir = tempDir(name)
  const sandbox = await spawnSandbox({ fund: FUND, webhookRetryMillis: 200, ...sandboxOptions })
  try {
    const file = join(dir, `${name}.csv`)
    await writeCsv(file, { rows: n, market: 0, prefix: `${name}-` })
    // A fresh process runs cold: warm the sandbox's payout path up (not counted) before measuring.
    if (run.rate === undefined && !("faults" in sandboxOptions && String(sandboxOptions.faults).includes("rate="))) await httpLoop(sandbox, 8, 1)
    const baseline = await sandbox.counters()
    const sampler = sampleCounters(sandbox, 250, baseline)
    const cpu0 = process.cpuUsage()
    const wall0 = performance.now()
    const listen = run.listen ? { host: "127.0.0.1", port: await freePort() } : undefined
    const times = await runOrchestrator({
      sandbox,
      file,
      state: join(dir, "state.db"),
      outDir: join(dir, "out"),
      settings: { concurrency: run.concurrency, ...(run.pollIntervalMs === undefined ? {} : { pollIntervalMs: run.pollIntervalMs }) },
      ...(run.rate === undefined ? {} : { rate: run.rate }),
      ...(listen === undefined ? {} : { listen })
    })
    const cpu = process.cpuUsage(cpu0)
    const cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wall0)
    log(`${name}: orchestrator process CPU ${Math.round(cpuShare * 100)}% of one core over the run`)
    const samples = await sampler.stop()
    if (times.exitCode !== 0) log(`${name}: run ended with exit ${times.exitCode} ${JSON.stringify(times.counts)}`)
    return { times, samples, sandbox, cpuShare, final: samples[samples.length - 1].counters }
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const latencySection = async () => {
  log("latency-bound throughput: sandbox latency 100 ms, concurrency 32, no rate limit")
  const n = scale(2_000)
  const concurrency = 32
  const { times, final } = await batchRun("latency", n, { faults: "*.latency=100ms-100ms", timeScale: 1 }, { concurrency })
  const bound = concurrency / 0.1
  log("plain HTTP loop at the same latency and concurrency (what the sandbox process can serve)")
  const sandbox = await spawnSandbox({ fund: FUND, faults: "*.latency=100ms-100ms" })
  const loop = await httpLoop(sandbox, 8, 1).then(() => httpLoop(sandbox, concurrency, quick ? 2 : 5)).finally(() => sandbox.stop())
  details.latency = { payouts: n, concurrency, latencyMs: 100, counters: final, plainLoop: loop, ...phases(times) }
  row({
    section: "latency", figure: "payouts submitted/s (latency 100 ms, concurrency 32)", value: perSecond(n, times.firstIntentAt, times.lastSubmittedAt),
    unit: "/s", bound, boundLabel: "concurrency / latency", target: ">= 0.9", met: perSecond(n, times.firstIntentAt, times.lastSubmittedAt) / bound >= 0.9
  })
  row({
    section: "latency", figure: "  vs plain HTTP loop, same latency and concurrency", value: perSecond(n, times.firstIntentAt, times.lastSubmittedAt),
    unit: "/s", bound: loop.perSecond, boundLabel: "plain loop req/s", target: "", met: undefined
  })
}

const rateSection = async (given: boolean) => {
  const label = given ? "given" : "adaptive"
  log(`rate-bound throughput: sandbox limit 50 requests/s, ${given ? "the limit given to us (--rate 50)" : "unknown to us (adaptive)"}`)
  const n = scale(1_200)
  const { times, samples, final } = await batchRun(`rate-${label}`, n, { faults: "rate=50", timeScale: 600 }, {
    concurrency: 16,
    ...(given ? { rate: 50 } : {}),
    pollIntervalMs: 2_000
  })
  const from = times.firstIntentAt
  const to = times.lastSubmittedAt
  const requests = counterAt(samples, "requests", to) - counterAt(samples, "requests", from)
  const limited = counterAt(samples, "rate_limited", to) - counterAt(samples, "rate_limited", from)
  const used = perSecond(requests - limited, from, to)
  const share429 = (final.rate_limited ?? 0) / Math.max(1, final.requests ?? 0)
  details[`rate_${label}`] = { payouts: n, limit: 50, counters: final, windowSeconds: round((to - from) / 1000), ...phases(times) }
  const [target, max429] = given ? [0.9, 0.01] : [0.8, 0.05]
  row({ section: "rate", figure: `requests used/s, limit 50 ${label}`, value: used, unit: "/s", bound: 50, boundLabel: "sandbox limit", target: `>= ${target}`, met: used / 50 >= target })
  row({ section: "rate", figure: `429 share, limit ${label}`, value: share429 * 100, unit: "%", bound: undefined, boundLabel: `<= ${max429 * 100}% of requests`, target: `<= ${max429 * 100}%`, met: share429 <= max429 })
}

const overheadSection = async () => {
  log("orchestrator overhead: sandbox at zero latency, webhooks on, end to end")
  const n = scale(5_000)
  const concurrency = 32
  const { times, final } = await batchRun("overhead", n, { timeScale: 1_000 }, { concurrency, listen: true })
  const e2e = perSecond(n, times.startedAt, times.endedAt)
  const submit = perSecond(n, times.firstIntentAt, times.lastSubmittedAt)
  log("plain HTTP load loop against the same sandbox endpoint (POST payout)")
  const sandbox = await spawnSandbox({ fund: FUND, timeScale: 1_000 })
  const loop = await httpLoop(sandbox, 8, 1).then(() => httpLoop(sandbox, concurrency, quick ? 2 : 5)).finally(() => sandbox.stop())
  const requestsPerPayout = (final.requests ?? 0) / n
  details.overhead = { payouts: n, concurrency, counters: final, requestsPerPayout: round(requestsPerPayout, 3), plainLoop: loop, ...phases(times) }
  row({ section: "overhead", figure: "payouts submitted and tracked to final/s, end to end (intake included)", value: e2e, unit: "/s", bound: 1_000, boundLabel: "goal 1,000/s", target: ">= 1.0", met: e2e >= 1_000 })
  row({ section: "overhead", figure: "payouts submitted/s (submit phase alone)", value: submit, unit: "/s", bound: undefined, boundLabel: "", target: "", met: undefined })
  row({ section: "overhead", figure: "orchestrator requests/s vs plain HTTP loop (same endpoint)", value: ((final.requests ?? 0) * 1000) / (times.lastFinalAt - times.firstIntentAt), unit: "req/s", bound: loop.perSecond, boundLabel: "plain HTTP loop req/s", target: "", met: undefined })
  return requestsPerPayout
}

const trackingSection = async () => {
  log("tracking efficiency: default poll schedule (5 s doubling to 5 min), sandbox in real time (payout delay 10 s)")
  const n = scale(1_000)
  // Both at once, each with its own sandbox: tracking is mostly waiting for the payouts to finish.
  const [webhooks, polling] = await Promise.all([
    batchRun("track-webhooks", n, { timeScale: 1 }, { concurrency: 8, listen: true }),
    batchRun("track-polling", n, { timeScale: 1 }, { concurrency: 8 })
  ])
  const perPayout = (c: Record<string, number>) => (c["status.requests"] ?? 0) / n
  details.tracking = { payouts: n, webhooks: { counters: webhooks.final, ...phases(webhooks.times) }, polling: { counters: polling.final, ...phases(polling.times) } }
  row({ section: "tracking", figure: "status lookups per payout, webhooks on", value: perPayout(webhooks.final), unit: "", bound: 1, boundLabel: "one lookup per payout", target: "<= 1.2", met: perPayout(webhooks.final) <= 1.2, ratio: perPayout(webhooks.final) })
  row({ section: "tracking", figure: "status lookups per payout, polling only (default schedule)", value: perPayout(polling.final), unit: "", bound: 1, boundLabel: "one lookup per payout", target: "report", met: undefined, ratio: perPayout(polling.final) })
}

const validateSection = async () => {
  const n = Number(flag("validate-rows") ?? (quick ? 100_000 : 1_000_000))
  const dir = tempDir("validate")
  const file = join(dir, "big.csv")
  log(`validation: generating a ${n.toLocaleString("en")}-row CSV`)
  const bytes = await writeCsv(file, { rows: n })
  const sandbox = await spawnSandbox({ fund: FUND })
  try {
    log("payouts validate (the CLI, in a child process)")
    const cli = await runMeasuredNode(
      ["bin/payouts.js", "validate", file, "--base-url", sandbox.baseUrl, "--api-key", sandbox.key, "--api-secret", sandbox.secret, "--state", join(dir, "state.db"), "--out", join(dir, "out")],
      root
    )
    if (cli.code !== 0) log(`validate exited ${cli.code}: ${cli.stderr.slice(-2000)}`)
    log("bounds: bare papaparse, bare libphonenumber")
    const parse = await bareParse(file)
    const phones = await barePhones(file)
    const rate = n / cli.seconds
    const baseline = await runMeasuredNode(["bin/payouts.js", "--help"], root)
    details.validate = {
      rows: n,
      bytes,
      exitCode: cli.code,
      seconds: round(cli.seconds),
      cpuSeconds: round(cli.cpuSeconds),
      maxRssMiB: round(cli.maxRssKiB / 1024),
      baselineRssMiB: round(baseline.maxRssKiB / 1024),
      bareParse: parse,
      barePhones: phones
    }
    row({ section: "validate", figure: `payouts validate rows/s (${n.toLocaleString("en")} rows)`, value: rate, unit: "/s", bound: 100_000, boundLabel: "goal 100,000/s", target: ">= 1.0", met: rate >= 100_000 })
    row({ section: "validate", figure: "  vs bare papaparse parse", value: rate, unit: "/s", bound: parse.perSecond, boundLabel: "papaparse rows/s", target: "", met: undefined })
    row({ section: "validate", figure: "  vs bare libphonenumber validation", value: rate, unit: "/s", bound: phones.perSecond, boundLabel: "libphonenumber numbers/s", target: "", met: undefined })
    row({ section: "validate", figure: "payouts validate rows per CPU-second (load-independent)", value: n / cli.cpuSeconds, unit: "/s", bound: 100_000, boundLabel: "goal 100,000/s", target: "", met: undefined })
    row({ section: "validate", figure: "payouts validate peak RSS", value: cli.maxRssKiB / 1024, unit: "MiB", bound: 256, boundLabel: "goal 256 MB", target: "<= 1.0", met: cli.maxRssKiB / 1024 <= 256 })
    row({ section: "validate", figure: "  the CLI's own baseline RSS (payouts --help)", value: baseline.maxRssKiB / 1024, unit: "MiB", bound: undefined, boundLabel: "", target: "", met: undefined })
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const started = Date.now()
const loadBefore = loadavg()
if (only.has("latency") || only.has("overhead")) {
  log("warm-up batch (not measured): the first run in a process pays for compiling and JIT")
  await batchRun("warmup", 300, { timeScale: 600 }, { concurrency: 8, pollIntervalMs: 200 })
}
if (only.has("latency")) await latencySection()
if (only.has("rate")) {
  await rateSection(true)
  await rateSection(false)
}
if (only.has("overhead")) await overheadSection()
if (only.has("tracking")) await trackingSection()
if (only.has("validate")) await validateSection()

const machine = {
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  memoryGiB: round(totalmem() / 2 ** 30, 1),
  node: process.version,
  kernel: release(),
  // Other work on the machine skews every figure: recorded so a reader can tell.
  loadAverage1mBefore: round(loadBefore[0]),
  loadAverage1mAfter: round(loadavg()[0])
}
const fmt = (x: number | undefined) => (x === undefined ? "" : x.toLocaleString("en", { maximumFractionDigits: 3 }))
const header = ["figure", "value", "bound", "ratio", "target", "met"]
const table = rows.map((r) => [r.figure, `${fmt(r.value)} ${r.unit}`.trim(), `${fmt(r.bound)} ${r.boundLabel}`.trim(), fmt(r.ratio), r.target, r.met === undefined ? "" : r.met ? "yes" : "NO"])
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)))
const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ")
console.log(line(header))
console.log(widths.map((w) => "-".repeat(w)).join("-|-"))
for (const t of table) console.log(line(t))
const totalSeconds = round((Date.now() - started) / 1000, 1)
console.log(`\nmachine: ${machine.cpus} x ${machine.cpu}, ${machine.memoryGiB} GiB, node ${machine.node}; load average ${machine.loadAverage1mBefore} before, ${machine.loadAverage1mAfter} after; bench took ${totalSeconds} s`)

const result = { date: new Date().toISOString(), machine, quick, totalSeconds, rows, details }
const outDir = join(root, "bench", "results")
mkdirSync(outDir, { recursive: true })
const name = `${result.date.slice(0, 19).replace(/[:T]/g, "-")}${quick ? "-quick" : ""}.json`
writeFileSync(join(outDir, name), `${JSON.stringify(result, null, 2)}\n`)
writeFileSync(join(outDir, quick ? "latest-quick.json" : "latest.json"), `${JSON.stringify(result, null, 2)}\n`)
console.log(`results: bench/results/${name}`)
process.exit(0)
