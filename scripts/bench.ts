/**
 * `npm run bench`: the figures of issue 32 (docs/PERFORMANCE.md), each measured through the built CLI
 * of HEAD and of the baseline (the code before issue 32) in the same run, alternated (A B, then B A, ...)
 * so a drift in the machine's load weighs on both alike; each value is the median of its runs. Both
 * pay the same service: `payouts sandbox` of HEAD's build. Prints a table and writes
 * bench/results/<date>.json and latest.json (latest-quick.json with --quick).
 *
 *   npm run bench [-- --quick] [--only startup,latency,rate,validate,workers] [--pairs N]
 *                 [--baseline COMMIT] [--validate-rows N] [--pg-url postgres://...] [--rate R]
 *
 * `workers` needs PostgreSQL: `--pg-url`, else PAYOUTS_TEST_DATABASE_URL, else the local
 * postgres://postgres@127.0.0.1:5432/test. Each workers run gets a fresh schema, dropped after it.
 */
import { cpus, loadavg, release, totalmem } from "node:os"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { BASELINE_COMMIT, baselineBuild, headBuild } from "./bench/builds.ts"
import { type BareRun, bareRun } from "./bench/bare-client.ts"
import { writeCsv } from "./bench/csv.ts"
import { barePhones } from "./bench/phones.ts"
import { type Build, type ChildRun, counterAt, freePort, median, round, runCli, sampleCounters, tempDir } from "./bench/measure.ts"
import { DEFAULT_PG_URL, rowTimes, type RowTimes, shownUrl, sqliteRowTimes, storeUrl, unreachable, withSchema } from "./bench/postgres.ts"
import { spawnSandbox, type SandboxOptions } from "./bench/sandbox.ts"
import { runWorkers, workerArgs } from "./bench/workers.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const argv = process.argv.slice(2)
const flag = (name: string) => {
  const at = argv.indexOf(`--${name}`)
  return at === -1 ? undefined : argv[at + 1]
}
const quick = argv.includes("--quick")
const ALL = "startup,latency,rate,validate,workers"
const only = new Set((flag("only") ?? ALL).split(","))
const pairsFlag = flag("pairs")
const pairs = (full: number) => (pairsFlag !== undefined ? Number(pairsFlag) : quick ? 1 : full)
const pgUrl = flag("pg-url") ?? process.env.PAYOUTS_TEST_DATABASE_URL ?? DEFAULT_PG_URL
const RATE = Number(flag("rate") ?? 50)

const log = (text: string) => console.error(`[bench] ${text}`)

interface Row {
  readonly section: string
  readonly figure: string
  readonly unit: string
  readonly head: number | undefined
  readonly baseline: number | undefined
  /** The bound HEAD's value must reach (">=") or stay under ("<="); none: reported only. */
  readonly bound?: { readonly op: ">=" | "<="; readonly value: number; readonly label: string }
  /** Why the figure fails whatever its value (e.g. runs that did not finish). */
  readonly failed?: string
}

const rows: Array<Row & { readonly ratio?: number; readonly pass?: boolean }> = []
const details: Record<string, unknown> = {}
const row = (r: Row) => {
  const ratio = r.bound === undefined || r.head === undefined ? undefined : round(r.head / r.bound.value, 3)
  const pass = r.bound === undefined ? undefined : r.failed === undefined && r.head !== undefined && (r.bound.op === ">=" ? r.head >= r.bound.value : r.head <= r.bound.value)
  const shown = (x: number | undefined) => (x === undefined ? undefined : round(x, 3))
  rows.push({ ...r, head: shown(r.head), baseline: shown(r.baseline), ...(ratio === undefined ? {} : { ratio }), ...(pass === undefined ? {} : { pass }) })
  log(`  ${r.figure}: HEAD ${shown(r.head)} ${r.unit}, baseline ${shown(r.baseline)} ${r.unit}${r.bound === undefined ? "" : ` (bound ${r.bound.op} ${round(r.bound.value)}: ${pass ? "pass" : "FAIL"})`}`)
}

/** `measure(build, i)` for every build, `n` times, the order swapped each time: the runs of each build. */
const alternate = async <A>(builds: ReadonlyArray<Build>, n: number, measure: (build: Build, i: number) => Promise<A>) => {
  const runs = new Map<Build, Array<A>>(builds.map((b) => [b, []]))
  for (let i = 0; i < n; i++) {
    for (const build of i % 2 === 0 ? builds : [...builds].reverse()) runs.get(build)!.push(await measure(build, i))
  }
  return runs
}

const byLabel = <A>(runs: Map<Build, Array<A>>, f: (xs: Array<A>) => number) => {
  const out: Record<string, number> = {}
  for (const [build, xs] of runs) out[build.label] = f(xs)
  return out as { HEAD?: number; baseline?: number }
}

const expectExit = (what: string, run: ChildRun, codes: ReadonlyArray<number>) => {
  if (run.code === null || !codes.includes(run.code)) throw new Error(`${what} exited ${run.code}, expected ${codes.join(" or ")}:\n${run.stderr.slice(-2_000)}\n${run.stdout.slice(-2_000)}`)
}

/** Ten rows, three of them invalid: validate refuses the file (exit 2) after loading everything a check loads. */
const REFUSED_CSV = join(root, "scripts/bundle/refused-10.csv")

const startupSection = async (builds: ReadonlyArray<Build>, head: Build) => {
  log("start: payouts --help and a refused payouts validate (10 rows, exit 2), whole processes")
  const dir = tempDir("startup")
  const sandbox = await spawnSandbox(head)
  try {
    const help = ["--help"]
    const validate = (build: Build) => ["validate", REFUSED_CSV, ...sandbox.connection, "--state", join(dir, `${build.label}.db`), "--out", join(dir, `out-${build.label}`)]
    // Not counted: each store is created (a user's exists already) and the files reach the page cache.
    for (const build of builds) expectExit(`${build.label} payouts validate (warm-up)`, await runCli(build, validate(build)), [2])
    const runs = await alternate(builds, pairs(9), async (build) => {
      const h = await runCli(build, help)
      const v = await runCli(build, validate(build))
      expectExit(`${build.label} payouts --help`, h, [0])
      expectExit(`${build.label} payouts validate`, v, [2])
      return { help: h, validate: v }
    })
    for (const command of ["help", "validate"] as const) {
      const name = command === "help" ? "payouts --help" : "payouts validate, refused (10 rows)"
      const seconds = byLabel(runs, (xs) => median(xs.map((x) => x[command].seconds)))
      const rss = byLabel(runs, (xs) => median(xs.map((x) => x[command].maxRssKiB / 1024)))
      const cpu = byLabel(runs, (xs) => median(xs.map((x) => x[command].cpuSeconds)))
      row({ section: "startup", figure: `${name}: wall time`, unit: "s", head: seconds.HEAD, baseline: seconds.baseline, bound: { op: "<=", value: 0.3, label: "" } })
      row({ section: "startup", figure: `${name}: peak RSS`, unit: "MiB", head: rss.HEAD, baseline: rss.baseline, bound: { op: "<=", value: 90, label: "" } })
      row({ section: "startup", figure: `  ${name}: CPU time`, unit: "s", head: cpu.HEAD, baseline: cpu.baseline })
    }
    details.startup = { pairs: pairs(9), runs: Object.fromEntries([...runs].map(([b, xs]) => [b.label, xs.map((x) => ({ help: strip(x.help), validate: strip(x.validate) }))])) }
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const strip = (r: ChildRun) => ({ code: r.code, seconds: round(r.seconds, 3), cpuSeconds: round(r.cpuSeconds, 3), maxRssMiB: round(r.maxRssKiB / 1024, 1) })

interface PayoutsRun {
  readonly child: ChildRun
  readonly times: RowTimes
  /** Requests the service accepted per second from the first intent to the last submission (all calls). */
  readonly acceptedPerSecond: number
  /** Payouts submitted per second over the same window. */
  readonly submittedPerSecond: number
  /** Payouts submitted per second from the first final status (the probe window open) to the last submission. */
  readonly submittedPerSecondAfterWindow: number
  readonly cpuMsPerPayout: number
  readonly share429: number
  readonly counters: Record<string, number>
}

/** One `payouts run` of `n` rows by `build`, tracked to final with webhooks, against a fresh sandbox of HEAD. */
const payoutsRun = async (build: Build, head: Build, name: string, n: number, service: SandboxOptions, options: ReadonlyArray<string>): Promise<PayoutsRun> => {
  const dir = tempDir(`${name}-${build.label}`)
  const sandbox = await spawnSandbox(head, service)
  try {
    const file = join(dir, "batch.csv")
    await writeCsv(file, { rows: n, market: 0, prefix: `${name}-${build.label}-` })
    const state = join(dir, "state.db")
    const sampler = sampleCounters(sandbox.counters, 250, await sandbox.counters())
    const child = await runCli(build, [
      "run", file, ...sandbox.connection, "--state", state, "--out", join(dir, "out"), "--listen", `127.0.0.1:${await freePort()}`,
      // A straggler whose webhook came before its POST's answer was recorded is polled soon, not at 5 min;
      // the least reconcile grace: a POST cut off on a loaded machine is settled without the half-hour wait.
      "--poll-interval", "1s", "--poll-max", "2s", "--reconcile-grace", "0s", ...options
    ], { timeoutMs: 30 * 60_000 })
    const samples = await sampler.stop()
    expectExit(`${build.label} payouts run (${name})`, child, [0])
    const times = await sqliteRowTimes(state)
    if (times.rows !== n) throw new Error(`${build.label} payouts run (${name}): ${times.rows} rows in the store, expected ${n}`)
    const from = times.firstIntentAt
    const to = times.lastSubmittedAt
    const accepted = (counterAt(samples, "requests", to) - counterAt(samples, "requests", from)) - (counterAt(samples, "rate_limited", to) - counterAt(samples, "rate_limited", from))
    const counters = samples[samples.length - 1].counters
    const seconds = Math.max(1, to - from) / 1000
    return {
      child,
      times,
      acceptedPerSecond: accepted / seconds,
      submittedPerSecond: n / seconds,
      submittedPerSecondAfterWindow: times.submittedAfterFirstFinal / (Math.max(1, to - times.firstFinalAt) / 1000),
      cpuMsPerPayout: (child.cpuSeconds * 1000) / n,
      share429: (counters.rate_limited ?? 0) / Math.max(1, counters.requests ?? 0),
      counters
    }
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const runDetail = (r: PayoutsRun) => ({
  ...strip(r.child),
  acceptedPerSecond: round(r.acceptedPerSecond),
  submittedPerSecond: round(r.submittedPerSecond),
  submittedPerSecondAfterWindow: round(r.submittedPerSecondAfterWindow),
  probeWindowSeconds: round((r.times.firstFinalAt - r.times.firstIntentAt) / 1000, 3),
  cpuMsPerPayout: round(r.cpuMsPerPayout, 3),
  share429Percent: round(r.share429 * 100, 3),
  windowSeconds: round((r.times.lastSubmittedAt - r.times.firstIntentAt) / 1000),
  trackedSeconds: round((r.times.lastFinalAt - r.times.firstIntentAt) / 1000),
  counters: r.counters
})

const latencySection = async (builds: ReadonlyArray<Build>, head: Build) => {
  const n = quick ? 600 : 3_000
  const concurrency = 32
  const latencyMs = 100
  log(`latency-bound: ${n} payouts, service latency ${latencyMs} ms on every call, --concurrency ${concurrency}, no rate limit; a bare client beside them`)
  const service = { faults: `*.latency=${latencyMs}ms-${latencyMs}ms`, payoutDelay: "1s" }
  // The bound: a bare client (bench/bare-client.ts) making the same calls under the same probe window,
  // measured between the pairs it bounds, at the same load: once each pair is done.
  const bare: Array<BareRun> = []
  let measured = 0
  // Beside each run, one of a third of its rows: the difference is the CPU of the added payouts alone,
  // without the start and the end a run pays once (node, the store, the preflight, the ledger, the report).
  const third = Math.round(n / 3)
  const added = new Map<Build, Array<number>>(builds.map((b) => [b, []]))
  const runs = await alternate(builds, pairs(3), async (build, i) => {
    const run = await payoutsRun(build, head, `latency${i}`, n, service, ["--concurrency", String(concurrency)])
    const small = await payoutsRun(build, head, `latencyThird${i}`, third, service, ["--concurrency", String(concurrency)])
    added.get(build)!.push(((run.child.cpuSeconds - small.child.cpuSeconds) * 1000) / (n - third))
    if (++measured % builds.length === 0) bare.push(await bareRun(head, service, n, concurrency))
    return run
  })
  const bareRate = median(bare.map((b) => b.perSecond))
  const rate = byLabel(runs, (xs) => median(xs.map((x) => x.submittedPerSecond)))
  const cpu = byLabel(runs, (xs) => median(xs.map((x) => x.cpuMsPerPayout)))
  row({ section: "service", figure: `latency-bound: payouts submitted/s (${latencyMs} ms, concurrency ${concurrency})`, unit: "/s", head: rate.HEAD, baseline: rate.baseline, bound: { op: ">=", value: 0.9 * bareRate, label: `0.9 x a bare client's ${round(bareRate)}/s` } })
  row({ section: "service", figure: "  latency-bound: a bare client, same calls, same probe window", unit: "/s", head: bareRate, baseline: bareRate })
  row({ section: "service", figure: `  concurrency / latency, the service's latency taken as set`, unit: "/s", head: concurrency / (latencyMs / 1000), baseline: concurrency / (latencyMs / 1000) })
  // The probe window (DESIGN 7) keeps all but the first payouts of the operator back until one is
  // final (POST, --payout-delay, webhook, status look-up): the figures above include that wait.
  const wait = byLabel(runs, (xs) => median(xs.map((x) => (x.times.firstFinalAt - x.times.firstIntentAt) / 1000)))
  const after = byLabel(runs, (xs) => median(xs.map((x) => x.submittedPerSecondAfterWindow)))
  const bareWait = median(bare.map((b) => b.waitSeconds))
  const bareAfter = median(bare.map((b) => b.perSecondAfterWindow))
  row({ section: "service", figure: "  latency-bound: probe window's wait (first intent to first final)", unit: "s", head: wait.HEAD, baseline: wait.baseline })
  row({ section: "service", figure: "  latency-bound: the bare client's wait", unit: "s", head: bareWait, baseline: bareWait })
  row({ section: "service", figure: "  latency-bound: submitted/s once the window opened (first final to last submission)", unit: "/s", head: after.HEAD, baseline: after.baseline })
  row({ section: "service", figure: "  latency-bound: the bare client's, once its window opened", unit: "/s", head: bareAfter, baseline: bareAfter })
  // The bound is on what each payout adds once the process runs: one core's sustained rate (issue 32's
  // reason for it). A whole run's figure also divides the process's one-off costs (its start and end,
  // V8 optimising the code) by the file's length: shown, with no bound (docs/PERFORMANCE.md).
  const perAdded = byLabel(added, median)
  row({ section: "service", figure: `orchestrator CPU per payout tracked to final: ${n.toLocaleString("en")} rows' CPU less ${third.toLocaleString("en")} rows', per row between`, unit: "ms", head: perAdded.HEAD, baseline: perAdded.baseline, bound: { op: "<=", value: 3, label: "" } })
  row({ section: "service", figure: `  CPU per payout over a whole run of ${n.toLocaleString("en")} (the process's start, end and V8's optimising included)`, unit: "ms", head: cpu.HEAD, baseline: cpu.baseline })
  // The same calls with nothing else (no Effect, store, checks or ledger): what the host charges for them.
  row({ section: "service", figure: "  the bare client's CPU per payout (same calls, fetch)", unit: "ms", head: median(bare.map((b) => b.cpuMsPerPayout)), baseline: median(bare.map((b) => b.cpuMsPerPayout)) })
  details.latency = {
    payouts: n, concurrency, latencyMs,
    cpuMsPerAddedPayout: Object.fromEntries([...added].map(([b, xs]) => [b.label, xs.map((x) => round(x, 3))])),
    bare: bare.map((b) => ({ perSecond: round(b.perSecond), waitSeconds: round(b.waitSeconds, 3), perSecondAfterWindow: round(b.perSecondAfterWindow), meanMs: round(b.meanMs, 1), cpuMsPerPayout: round(b.cpuMsPerPayout, 3) })),
    runs: Object.fromEntries([...runs].map(([b, xs]) => [b.label, xs.map(runDetail)]))
  }
}

const rateSection = async (builds: ReadonlyArray<Build>, head: Build) => {
  const n = quick ? 400 : 1_500
  const concurrency = 16
  log(`rate-bound: ${n} payouts, service limit ${RATE} requests/s (429 above), --rate ${RATE}, --concurrency ${concurrency}`)
  const service = { faults: `rate=${RATE}`, timeScale: 600 }
  const runs = await alternate(builds, pairs(2), (build, i) => payoutsRun(build, head, `rate${i}`, n, service, ["--rate", String(RATE), "--concurrency", String(concurrency)]))
  const used = byLabel(runs, (xs) => median(xs.map((x) => x.acceptedPerSecond)))
  const share = byLabel(runs, (xs) => median(xs.map((x) => x.share429 * 100)))
  const cpu = byLabel(runs, (xs) => median(xs.map((x) => x.cpuMsPerPayout)))
  row({ section: "service", figure: `rate-bound: requests accepted/s (--rate ${RATE}, service limit ${RATE})`, unit: "/s", head: used.HEAD, baseline: used.baseline, bound: { op: ">=", value: 0.99 * RATE, label: `0.99 x --rate ${RATE}` } })
  row({ section: "service", figure: "  rate-bound: share of requests answered 429", unit: "%", head: share.HEAD, baseline: share.baseline })
  row({ section: "service", figure: "  rate-bound: CPU per payout tracked to final", unit: "ms", head: cpu.HEAD, baseline: cpu.baseline })
  details.rate = { payouts: n, concurrency, rate: RATE, runs: Object.fromEntries([...runs].map(([b, xs]) => [b.label, xs.map(runDetail)])) }
}

const validateSection = async (builds: ReadonlyArray<Build>, head: Build) => {
  const largest = Number(flag("validate-rows") ?? (quick ? 200_000 : 1_000_000))
  const sizes = [...new Set([10_000, 100_000, largest])].filter((s) => s <= largest).sort((a, b) => a - b)
  const dir = tempDir("validate")
  const sandbox = await spawnSandbox(head)
  try {
    const files = new Map<number, string>()
    for (const size of sizes) {
      const file = join(dir, `rows-${size}.csv`)
      log(`generating a ${size.toLocaleString("en")}-row CSV`)
      await writeCsv(file, { rows: size })
      files.set(size, file)
    }
    log(`validate of ${sizes.map((s) => s.toLocaleString("en")).join(", ")} rows by each build, and bare libphonenumber (one thread) over the same numbers`)
    const phones: Array<number> = []
    const phonesPerCpu: Array<number> = []
    const phonesEs6: Array<number> = []
    const perSize = new Map<number, Map<Build, Array<ChildRun>>>()
    const n = pairs(3)
    for (const size of sizes) {
      // Larger files: fewer pairs (one 1M-row validate takes half a minute or more).
      const count = size >= 500_000 ? Math.max(1, Math.min(n, 2)) : n
      perSize.set(size, await alternate(builds, count, async (build, i) => {
        const r = await runCli(build, ["validate", files.get(size)!, ...sandbox.connection, "--state", join(dir, `${build.label}-${size}-${i}.db`), "--out", join(dir, `out-${build.label}-${size}-${i}`)])
        expectExit(`${build.label} payouts validate of ${size} rows`, r, [0])
        return r
      }))
      // The bound measured between the runs it bounds, at the same load.
      const measured = await barePhones(files.get(largest)!)
      phones.push(measured.default.perSecond)
      phonesPerCpu.push(measured.default.perCpuSecond)
      phonesEs6.push(measured.es6.perSecond)
    }
    const bare = median(phones)
    const rate = (size: number) => byLabel(perSize.get(size)!, (xs) => size / median(xs.map((x) => x.seconds)))
    const rss = (size: number) => byLabel(perSize.get(size)!, (xs) => median(xs.map((x) => x.maxRssKiB / 1024)))
    const top = rate(largest)
    const label = (s: number) => s.toLocaleString("en")
    row({ section: "validate", figure: `validate rows/s, ${label(largest)} rows`, unit: "/s", head: top.HEAD, baseline: top.baseline, bound: { op: ">=", value: 0.45 * bare, label: `0.45 x bare libphonenumber (${Math.round(bare)}/s)` } })
    row({ section: "validate", figure: `  bare libphonenumber numbers/s (one thread, same numbers)`, unit: "/s", head: bare, baseline: bare })
    // The build payouts loads (domain/Phone.ts): not the bound, shown so the reader sees both.
    const bareEs6 = median(phonesEs6)
    row({ section: "validate", figure: `  bare libphonenumber numbers/s, its es6 build (the one payouts loads)`, unit: "/s", head: bareEs6, baseline: bareEs6 })
    row({ section: "validate", figure: `  validate rows/s over that es6 build's numbers/s`, unit: "x", head: top.HEAD === undefined ? undefined : top.HEAD / bareEs6, baseline: top.baseline === undefined ? undefined : top.baseline / bareEs6 })
    // Less sensitive to other work on the machine than the wall clock (the baseline used two threads).
    const perCpu = byLabel(perSize.get(largest)!, (xs) => largest / median(xs.map((x) => x.cpuSeconds)))
    row({ section: "validate", figure: `  validate rows per CPU-second, ${label(largest)} rows`, unit: "/s", head: perCpu.HEAD, baseline: perCpu.baseline })
    row({ section: "validate", figure: `  bare libphonenumber numbers per CPU-second`, unit: "/s", head: median(phonesPerCpu), baseline: median(phonesPerCpu) })
    for (const size of sizes.slice(0, -1)) {
      const r = rate(size)
      row({ section: "validate", figure: `  validate rows/s, ${label(size)} rows`, unit: "/s", head: r.HEAD, baseline: r.baseline })
    }
    for (const size of sizes) {
      const m = rss(size)
      row({ section: "validate", figure: `${size === largest ? "" : "  "}validate peak RSS, ${label(size)} rows`, unit: "MiB", head: m.HEAD, baseline: m.baseline, ...(size === largest ? { bound: { op: "<=" as const, value: 256, label: "" } } : {}) })
    }
    // Flat: the wall time each added row costs (the process's start left out), last step against the first.
    if (sizes.length >= 3) {
      const seconds = (size: number) => byLabel(perSize.get(size)!, (xs) => median(xs.map((x) => x.seconds)))
      const step = (a: number, b: number) => {
        const [sa, sb] = [seconds(a), seconds(b)]
        const per = (k: "HEAD" | "baseline") => (sa[k] === undefined || sb[k] === undefined ? undefined : ((sb[k]! - sa[k]!) * 1e6) / (b - a))
        return { HEAD: per("HEAD"), baseline: per("baseline") }
      }
      const first = step(sizes[0], sizes[1])
      const last = step(sizes[sizes.length - 2], sizes[sizes.length - 1])
      const growth = (k: "HEAD" | "baseline") => (first[k] === undefined || last[k] === undefined ? undefined : last[k]! / first[k]!)
      row({ section: "validate", figure: `validate time per added row, ${label(sizes[sizes.length - 2])} -> ${label(largest)} over ${label(sizes[0])} -> ${label(sizes[1])}`, unit: "x", head: growth("HEAD"), baseline: growth("baseline"), bound: { op: "<=", value: 1.5, label: "flat" } })
      row({ section: "validate", figure: `  time per added row, ${label(sizes[0])} -> ${label(sizes[1])}`, unit: "us", head: first.HEAD, baseline: first.baseline })
      row({ section: "validate", figure: `  time per added row, ${label(sizes[sizes.length - 2])} -> ${label(largest)}`, unit: "us", head: last.HEAD, baseline: last.baseline })
    }
    details.validate = {
      sizes,
      barePhonesPerSecond: phones.map((x) => round(x)),
      barePhonesPerCpuSecond: phonesPerCpu.map((x) => round(x)),
      barePhonesEs6PerSecond: phonesEs6.map((x) => round(x)),
      runs: Object.fromEntries([...perSize].map(([size, runs]) => [size, Object.fromEntries([...runs].map(([b, xs]) => [b.label, xs.map(strip)]))]))
    }
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Four `payouts watch` workers of `build` on one PostgreSQL store and 4 batches, the sandbox limited to RATE. */
const workersRun = async (build: Build, head: Build, i: number, shape: { readonly batches: number; readonly rowsPerBatch: number; readonly concurrency: number; readonly workers: number }) => {
  const sandbox = await spawnSandbox(head, { faults: `rate=${RATE}`, timeScale: 600 })
  try {
    return await withSchema(pgUrl, "payouts_bench_workers", async (schema) => {
      const sampler = sampleCounters(sandbox.counters, 250, await sandbox.counters())
      const expectedSeconds = (shape.batches * shape.rowsPerBatch * 3) / RATE
      const result = await runWorkers({ build, sandbox, state: storeUrl(pgUrl, schema), rate: RATE, tag: String(i), timeoutMs: Math.round(expectedSeconds * 4_000 + 120_000), ...shape })
        .finally(() => sampler.stop())
      const samples = await sampler.stop()
      const times = await rowTimes(pgUrl, schema)
      const from = times.firstIntentAt
      const to = times.lastSubmittedAt
      const accepted = (counterAt(samples, "requests", to) - counterAt(samples, "requests", from)) - (counterAt(samples, "rate_limited", to) - counterAt(samples, "rate_limited", from))
      const counters = samples[samples.length - 1].counters
      const complete = !result.timedOut && result.done === shape.batches && times.rows === shape.batches * shape.rowsPerBatch
      if (!complete) log(`workers ${build.label}: ${result.done} done, ${result.rejected} rejected${result.timedOut ? ", TIMED OUT" : ""}; rows ${JSON.stringify(times.states)}\n${result.outputTails.join("\n---\n")}`)
      return {
        used: (accepted * 1000) / Math.max(1, to - from),
        complete,
        share429: (counters.rate_limited ?? 0) / Math.max(1, counters.requests ?? 0),
        detail: { complete, done: result.done, rejected: result.rejected, exits: result.exits, rowStates: times.states, windowSeconds: round((to - from) / 1000), counters }
      }
    })
  } finally {
    await sandbox.stop()
  }
}

const workersSection = async (builds: ReadonlyArray<Build>, head: Build) => {
  const reason = await unreachable(pgUrl)
  if (reason !== undefined) {
    log(`workers: SKIPPED, PostgreSQL at ${shownUrl(pgUrl)} does not answer (${reason}); give --pg-url or PAYOUTS_TEST_DATABASE_URL`)
    row({ section: "workers", figure: `four watch workers: skipped, PostgreSQL unreachable (${reason})`, unit: "", head: undefined, baseline: undefined, bound: { op: ">=", value: 0.9 * RATE, label: "" } })
    return
  }
  const shape = { workers: 4, batches: 4, rowsPerBatch: quick ? 80 : 300, concurrency: 8 }
  log(`four payouts watch workers, one PostgreSQL store, ${shape.batches} batches of ${shape.rowsPerBatch}, service limit ${RATE}/s, every worker --rate ${RATE}`)
  const runs = await alternate(builds, pairs(1), (build, i) => workersRun(build, head, i, shape))
  const used = byLabel(runs, (xs) => median(xs.map((x) => x.used)))
  const share = byLabel(runs, (xs) => median(xs.map((x) => x.share429 * 100)))
  const unfinished = [...runs].filter(([, xs]) => xs.some((x) => !x.complete)).map(([b]) => b.label)
  row({
    section: "workers", figure: `four PostgreSQL watch workers: requests accepted/s (shared --rate ${RATE})${unfinished.length === 0 ? "" : `, UNFINISHED runs: ${unfinished.join(", ")}`}`,
    unit: "/s", head: used.HEAD, baseline: used.baseline, bound: { op: ">=", value: 0.9 * RATE, label: `0.9 x --rate ${RATE}` },
    ...(unfinished.includes("HEAD") ? { failed: "HEAD's runs did not finish" } : {})
  })
  row({ section: "workers", figure: "  four workers: share of requests answered 429", unit: "%", head: share.HEAD, baseline: share.baseline })
  details.workers = { ...shape, rate: RATE, database: shownUrl(pgUrl), workerArgs: workerArgs("DIR", { rate: RATE, concurrency: shape.concurrency }), runs: Object.fromEntries([...runs].map(([b, xs]) => [b.label, xs.map((x) => ({ used: round(x.used), share429Percent: round(x.share429 * 100, 3), ...x.detail }))])) }
}

const started = Date.now()
const loadBefore = loadavg()
const head = headBuild(root)
const baseline = baselineBuild(root, flag("baseline") ?? BASELINE_COMMIT, log)
const builds = [head, baseline]
log(`HEAD ${head.commit} (${head.dir}) against baseline ${baseline.commit} (${baseline.dir})${quick ? ", quick sizes" : ""}`)
if (only.has("startup")) await startupSection(builds, head)
if (only.has("latency")) await latencySection(builds, head)
if (only.has("rate")) await rateSection(builds, head)
if (only.has("validate")) await validateSection(builds, head)
if (only.has("workers")) await workersSection(builds, head)

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
const fmt = (x: number | undefined) => (x === undefined ? "" : x.toLocaleString("en", { maximumFractionDigits: x >= 100 ? 0 : 3 }))
const header = ["figure", "HEAD", "baseline", "bound", "HEAD/bound", "pass"]
const table = rows.map((r) => [
  r.figure,
  `${fmt(r.head)} ${r.unit}`.trim(),
  `${fmt(r.baseline)} ${r.unit}`.trim(),
  r.bound === undefined ? "" : `${r.bound.op} ${fmt(r.bound.value)} ${r.unit}${r.bound.label === "" ? "" : ` (${r.bound.label})`}`,
  fmt(r.ratio),
  r.pass === undefined ? "" : r.pass ? "pass" : "FAIL"
])
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)))
const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ").trimEnd()
console.log(`HEAD ${head.commit} against baseline ${baseline.commit} (the code before issue 32), medians of alternated runs${quick ? ", --quick sizes" : ""}`)
console.log(line(header))
console.log(widths.map((w) => "-".repeat(w)).join("-|-"))
for (const t of table) console.log(line(t))
const totalSeconds = round((Date.now() - started) / 1000, 1)
console.log(`\nmachine: ${machine.cpus} x ${machine.cpu}, ${machine.memoryGiB} GiB, node ${machine.node}; load average ${machine.loadAverage1mBefore} before, ${machine.loadAverage1mAfter} after; bench took ${totalSeconds} s`)

const result = { date: new Date().toISOString(), machine, quick, builds: { head: head.commit, baseline: baseline.commit }, totalSeconds, rows, details }
const outDir = join(root, "bench", "results")
mkdirSync(outDir, { recursive: true })
const name = `${result.date.slice(0, 19).replace(/[:T]/g, "-")}${quick ? "-quick" : ""}.json`
writeFileSync(join(outDir, name), `${JSON.stringify(result, null, 2)}\n`)
writeFileSync(join(outDir, quick ? "latest-quick.json" : "latest.json"), `${JSON.stringify(result, null, 2)}\n`)
console.log(`results: bench/results/${name}`)
process.exit(rows.some((r) => r.pass === false) ? 1 : 0)
