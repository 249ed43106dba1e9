/**
 * `npm run bench`: the figures of docs/PERFORMANCE.md, each against its bound, in one run. The sandbox
 * runs in a separate process; the orchestrator runs in this one, wired as `payouts run` wires it;
 * `payouts validate` and the `payouts watch` workers of the `workers` section run as the real CLI in
 * child processes. Prints a table and writes
 * bench/results/<date>.json (and latest.json).
 *
 *   npm run bench [-- --only startup,sandbox,latency,rate,overhead,tracking,pgtracking,workers,validate,cost] [--validate-rows N] [--quick]
 *                 [--pg-url postgres://...] [--workers-rate R]
 *
 * `pgtracking` and `workers` need PostgreSQL: `--pg-url`, else PAYOUTS_TEST_DATABASE_URL, else the local
 * postgres://postgres@127.0.0.1:5432/test. Each measured run gets a fresh schema, dropped after it.
 */
import { cpus, loadavg, release, totalmem } from "node:os"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { writeCsv } from "./bench/csv.ts"
import { httpLoop } from "./bench/load.ts"
import { counterAt, type Figure, freePort, round, sampleCounters, tempDir } from "./bench/measure.ts"
import { runOrchestrator, type OrchestratorTimes } from "./bench/orchestrator.ts"
import { spawnSandbox } from "./bench/sandbox.ts"
import { DEFAULT_PG_URL, rowTimes, type RowTimes, shownUrl, sqliteRowTimes, storeUrl, unreachable, withSchema } from "./bench/postgres.ts"
import { runWorkers, workerArgs } from "./bench/workers.ts"
import { benchCost } from "./bench/cost.ts"
import { benchStartup } from "./bench/startup.ts"
import { benchValidate } from "./bench/validate.ts"
import { benchSandboxSpeed } from "./bench/sandboxspeed.ts"
import * as PostgresStateStore from "../src/store/PostgresStateStore.ts"
import type { StoreError } from "../src/store/Model.ts"
import type { StateStore } from "../src/store/StateStore.ts"
import { type Layer, Redacted } from "effect"

const root = fileURLToPath(new URL("..", import.meta.url))
const argv = process.argv.slice(2)
const flag = (name: string) => {
  const at = argv.indexOf(`--${name}`)
  return at === -1 ? undefined : argv[at + 1]
}
const quick = argv.includes("--quick")
const ALL = "startup,sandbox,latency,rate,overhead,tracking,pgtracking,workers,validate,cost"
const only = new Set((flag("only") ?? ALL).split(","))
const pgUrl = flag("pg-url") ?? process.env.PAYOUTS_TEST_DATABASE_URL ?? DEFAULT_PG_URL
const scale = (n: number) => (quick ? Math.max(100, Math.round(n / 10)) : n)
const FUND = { XAF: 100_000_000_000, XOF: 100_000_000_000 }

interface Row extends Figure {
  readonly section: string
  readonly ratio: number | undefined
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
const batchRun = async (name: string, n: number, sandboxOptions: { readonly faults?: string; readonly timeScale?: number }, run: { concurrency: number; rate?: number; pollIntervalMs?: number; pollMaxMs?: number; listen?: boolean; store?: Layer.Layer<StateStore, StoreError> }) => {
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
      settings: { concurrency: run.concurrency, ...(run.pollIntervalMs === undefined ? {} : { pollIntervalMs: run.pollIntervalMs }), ...(run.pollMaxMs === undefined ? {} : { pollMaxMs: run.pollMaxMs }) },
      ...(run.rate === undefined ? {} : { rate: run.rate }),
      ...(listen === undefined ? {} : { listen }),
      ...(run.store === undefined ? {} : { store: run.store })
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

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Why PostgreSQL cannot be used (logged loudly, the section's rows say it), else undefined. */
const postgresMissing = async (section: string) => {
  const reason = await unreachable(pgUrl)
  if (reason === undefined) return undefined
  log(`${section}: SKIPPED, PostgreSQL at ${shownUrl(pgUrl)} does not answer (${reason}); give --pg-url or PAYOUTS_TEST_DATABASE_URL`)
  details[section] = { skipped: reason, database: shownUrl(pgUrl) }
  row({ section, figure: `${section}: skipped, PostgreSQL unreachable`, value: 0, unit: "", bound: undefined, boundLabel: reason, target: "", met: false })
  return reason
}

const pgTrackingSection = async () => {
  if ((await postgresMissing("pgtracking")) !== undefined) return
  const n = quick ? 500 : 3_000
  const pairs = quick ? 1 : 3
  const concurrency = 32
  log(`store throughput: ${n} payouts tracked to final, PostgreSQL store vs SQLite store, sandbox at zero latency, concurrency ${concurrency}, polls every 100 ms, ${pairs} pair(s) of runs`)
  // Polling with short timings, not --listen: a webhook that arrives before its payout is tracked (the
  // POST's answer not yet recorded) is dropped, and that payout then waits its first poll at --poll-max
  // (5 min), one such payout decides "last final" of a run (seen here: 303 s for 500 payouts).
  const tracking = { concurrency, pollIntervalMs: 100, pollMaxMs: 400 }
  const sqlite = (name: string, rows: number) => batchRun(name, rows, { timeScale: 1_000 }, tracking)
  const postgres = (name: string, rows: number) =>
    withSchema(pgUrl, "payouts_bench", (schema) =>
      batchRun(name, rows, { timeScale: 1_000 }, { ...tracking, store: PostgresStateStore.layer({ url: Redacted.make(pgUrl), schema }) })
    )
  log("warm-up runs on each store (not measured): loading the adapters and JIT")
  await sqlite("pgt-warmup-sqlite", 200)
  await postgres("pgt-warmup-postgres", 200)
  const figures = (r: Awaited<ReturnType<typeof sqlite>>) => ({
    tracked: perSecond(n, r.times.firstIntentAt, r.times.lastFinalAt),
    endToEnd: perSecond(n, r.times.startedAt, r.times.endedAt),
    cpuShare: round(r.cpuShare),
    counters: r.final,
    ...phases(r.times)
  })
  const runs: { sqlite: Array<ReturnType<typeof figures>>; postgres: Array<ReturnType<typeof figures>> } = { sqlite: [], postgres: [] }
  // Alternate which store goes first, so a drift in machine load weighs on both alike.
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? (["sqlite", "postgres"] as const) : (["postgres", "sqlite"] as const)
    for (const store of order) {
      const r = figures(store === "sqlite" ? await sqlite(`pgt-sqlite-${i}`, n) : await postgres(`pgt-postgres-${i}`, n))
      log(`pgtracking ${store} run ${i}: ${round(r.tracked)} tracked to final/s, ${round(r.endToEnd)}/s end to end, exit ${r.exitCode}, ${r.rows} rows`)
      runs[store].push(r)
    }
  }
  const tracked = { sqlite: median(runs.sqlite.map((r) => r.tracked)), postgres: median(runs.postgres.map((r) => r.tracked)) }
  const endToEnd = { sqlite: median(runs.sqlite.map((r) => r.endToEnd)), postgres: median(runs.postgres.map((r) => r.endToEnd)) }
  const allPaid = [...runs.sqlite, ...runs.postgres].every((r) => r.exitCode === 0 && r.rows === n)
  details.pgtracking = { payouts: n, concurrency, pairs, pollIntervalMs: 100, pollMaxMs: 400, database: shownUrl(pgUrl), allRunsExit0: allPaid, medians: { tracked, endToEnd }, runs }
  const ratio = tracked.postgres / tracked.sqlite
  row({
    section: "pgtracking", figure: `payouts tracked to final/s, PostgreSQL store (median of ${pairs}, first intent to last final)`, value: tracked.postgres, unit: "/s",
    bound: tracked.sqlite, boundLabel: "SQLite store, same run", target: ">= 0.8", met: allPaid && ratio >= 0.8
  })
  row({
    section: "pgtracking", figure: "  end to end (intake, preflight, outputs included)", value: endToEnd.postgres, unit: "/s",
    bound: endToEnd.sqlite, boundLabel: "SQLite store, same run", target: "", met: undefined
  })
}

/**
 * One pool of `workers` watch workers on 4 batches against a sandbox limited to `rate`: the account's
 * accepted requests per second from the first intent to the last submission of the run (every batch),
 * and the share of 429 answers over everything the workers sent. `store`: one PostgreSQL schema shared
 * by the pool (the budget shared through the account's register), or one SQLite file (one worker: the
 * gate paces its process alone), the control that tells the shared budget's cost from the machine's.
 */
const workersRun = async (workers: number, store: "postgres" | "sqlite", shape: { rate: number; batches: number; rowsPerBatch: number; concurrency: number }) => {
  const { rate, batches, rowsPerBatch, concurrency } = shape
  const sandbox = await spawnSandbox({ fund: FUND, webhookRetryMillis: 200, faults: `rate=${rate}`, timeScale: 600 })
  const sqliteDir = tempDir("workers-sqlite")
  try {
    const run = async (state: string, times: () => Promise<RowTimes>) => {
      const baseline = await sandbox.counters()
      const sampler = sampleCounters(sandbox, 250, baseline)
      const expectedSeconds = (batches * rowsPerBatch * 3) / rate
      const result = await runWorkers({ sandbox, state, workers, batches, rowsPerBatch, rate, concurrency, timeoutMs: Math.round(expectedSeconds * 4_000 + 120_000) }).catch(
        async (error: unknown) => {
          await sampler.stop()
          throw error
        }
      )
      const samples = await sampler.stop()
      return { result, samples, times: await times() }
    }
    const { result, samples, times } =
      store === "postgres"
        ? await withSchema(pgUrl, "payouts_bench_workers", (schema) => run(storeUrl(pgUrl, schema), () => rowTimes(pgUrl, schema)))
        : await run(join(sqliteDir, "state.db"), () => sqliteRowTimes(join(sqliteDir, "state.db")))
    const from = times.firstIntentAt
    const to = times.lastSubmittedAt
    const requests = counterAt(samples, "requests", to) - counterAt(samples, "requests", from)
    const limited = counterAt(samples, "rate_limited", to) - counterAt(samples, "rate_limited", from)
    const used = perSecond(requests - limited, from, to)
    const final = samples[samples.length - 1].counters
    const share429 = (final.rate_limited ?? 0) / Math.max(1, final.requests ?? 0)
    const complete = !result.timedOut && result.done === batches && times.rows === batches * rowsPerBatch
    const label = `${workers} worker(s), ${store === "postgres" ? "PostgreSQL" : "SQLite"}`
    if (!complete) log(`workers ${label}: ${result.done} done, ${result.rejected} rejected${result.timedOut ? ", TIMED OUT" : ""}; rows ${JSON.stringify(times.states)}\n${result.outputTails.join("\n---\n")}`)
    log(`workers ${label}: ${round(used)} requests/s accepted over ${round((to - from) / 1000)} s (${round(used / rate, 3)} of ${rate}), 429 share ${round(share429 * 100, 3)}%, all in done/ after ${round((result.doneAt - result.droppedAt) / 1000)} s`)
    return {
      used,
      share429,
      complete,
      detail: {
        done: result.done,
        rejected: result.rejected,
        timedOut: result.timedOut,
        exits: result.exits,
        rowStates: times.states,
        windowSeconds: round((to - from) / 1000),
        requestsInWindow: round(requests),
        rateLimitedInWindow: round(limited),
        secondsDroppedToDone: round((result.doneAt - result.droppedAt) / 1000),
        // Each batch's submission window, in seconds from the first intent of the run.
        batchWindows: times.batches.map((b) => ({ batch: b.batchId, from: round((b.firstIntentAt - from) / 1000), to: round((b.lastSubmittedAt - from) / 1000), final: round((b.lastFinalAt - from) / 1000) })),
        counters: final
      }
    }
  } finally {
    await sandbox.stop()
    rmSync(sqliteDir, { recursive: true, force: true })
  }
}

const workersSection = async () => {
  if ((await postgresMissing("workers")) !== undefined) return
  const rate = Number(flag("workers-rate") ?? 50)
  const shape = { rate, batches: 4, rowsPerBatch: quick ? 60 : 300, concurrency: 8 }
  const counts = [1, 2, 4]
  log(`a pool of watch workers: ${counts.join(", ")} workers (bin/payouts.js), one PostgreSQL store, ${shape.batches} batches of ${shape.rowsPerBatch}, sandbox limit rate=${rate}/s, every worker --rate ${rate}`)
  const byWorkers: Record<string, unknown> = {}
  for (const workers of counts) {
    const r = await workersRun(workers, "postgres", shape)
    byWorkers[String(workers)] = r.detail
    row({
      section: "workers", figure: `account requests accepted/s, ${workers} worker(s), limit ${rate}`, value: r.used, unit: "/s",
      bound: rate, boundLabel: "sandbox limit (= --rate)", target: ">= 0.9", met: r.complete && r.used / rate >= 0.9
    })
    row({
      section: "workers", figure: `429 share, ${workers} worker(s)`, value: r.share429 * 100, unit: "%",
      bound: undefined, boundLabel: "<= 1% of requests", target: "<= 1%", met: r.complete && r.share429 <= 0.01
    })
  }
  log("control: 1 worker on a SQLite store (its gate paces the process alone, no shared budget), same batches and limit")
  const control = await workersRun(1, "sqlite", shape)
  row({
    section: "workers", figure: `  control: 1 worker, SQLite store (no shared budget), limit ${rate}`, value: control.used, unit: "/s",
    bound: rate, boundLabel: "sandbox limit (= --rate)", target: "report", met: undefined
  })
  details.workers = {
    ...shape,
    concurrencyPerWorker: shape.concurrency,
    database: shownUrl(pgUrl),
    workerArgs: workerArgs("DIR", { rate, concurrency: shape.concurrency, callbackUrl: "the sandbox's webhook sink" }),
    byWorkers,
    controlSqliteOneWorker: { ...control.detail, used: round(control.used), share429: round(control.share429 * 100, 3) }
  }
}

const validateSection = async () => {
  const n = Number(flag("validate-rows") ?? (quick ? 100_000 : 1_000_000))
  log(`validation: payouts validate (the CLI) at 100,000 and ${n.toLocaleString("en")} rows against bare papaparse and libphonenumber`)
  moduleRows("validate", await benchValidate({ rows: n }))
}

/** A section measured by its own module: its rows go in the table as they come. */
const moduleRows = (section: string, measured: ReadonlyArray<Omit<Row, "section" | "ratio">>) => {
  for (const r of measured) row({ section, ...r })
}

const startupSection = async () => {
  log("start-up: payouts --help and a refused validate against a bare import of the dependencies (whole processes)")
  moduleRows("startup", await benchStartup({ runs: quick ? 5 : 9 }))
}

const sandboxSection = async () => {
  log("sandbox speed: payout POSTs/s on one core, plain keep-alive loop at concurrency 32")
  moduleRows("sandbox", await benchSandboxSpeed({ seconds: quick ? 3 : 8, runs: quick ? 1 : 3, log }))
}

const costSection = async () => {
  const result = await benchCost({
    root,
    intakeSizes: quick ? [10_000, 50_000, 100_000] : [10_000, 100_000, 1_000_000],
    runSizes: quick ? [1_000, 10_000] : [10_000, 100_000],
    log
  })
  details.cost = result.details
  moduleRows("cost", result.rows)
}

const started = Date.now()
const loadBefore = loadavg()
if (only.has("startup")) await startupSection()
if (only.has("sandbox")) await sandboxSection()
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
if (only.has("pgtracking")) await pgTrackingSection()
if (only.has("workers")) await workersSection()
if (only.has("validate")) await validateSection()
if (only.has("cost")) await costSection()

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
