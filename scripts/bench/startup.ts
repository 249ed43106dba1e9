/**
 * Startup of the bundled CLI (issue 15, item 1), as whole processes: `payouts --help`, and `payouts
 * validate` of a 10-row file refused at intake (exit 2, after the command tree, the client, the store
 * and the intake are really loaded), against a bare `node` import of the product's dependencies in the
 * same run. Runs are interleaved so a busy machine slows all three alike; each figure is the median.
 * Peak RSS and CPU come from the preload probe (rss-probe.cjs) in each child.
 *
 *   npx tsx scripts/bench/startup.ts [--runs 7]
 */
import { spawnSync } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type ChildRun, round, runMeasuredNode, tempDir, type Figure } from "./measure.ts"
import { spawnSandbox } from "./sandbox.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The goals of issue 15: at most this share of the bare import, this many seconds, this much memory. */
const SHARE_OF_BARE = 0.3
const MAX_SECONDS = 0.3
const MAX_RSS_MIB = 90

export type StartupRow = Figure

/** Every package the product imports, through their indexes: what a start without bundling would load. */
const BARE_IMPORT = [
  "effect",
  "@effect/platform-node",
  "@effect/cli",
  "@effect/sql-sqlite-node",
  "@effect/sql-pg",
  "libphonenumber-js/max",
  "papaparse"
].map((name) => `await import(${JSON.stringify(name)})`).join("; ")

/**
 * Ten rows, three invalid on their own (a phone number, an amount, an e-mail): refused whole, exit 2.
 * The same file the build trains the code caches on (scripts/bundle/train.mjs) and the bench measures
 * (scripts/bench/startup.ts), so the start measured is the start trained.
 */
const REFUSED_CSV = readFileSync(fileURLToPath(new URL("../bundle/refused-10.csv", import.meta.url)), "utf8")

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

interface Figures {
  readonly seconds: number
  readonly cpuSeconds: number
  readonly rssMiB: number
}

const figuresOf = (runs: ReadonlyArray<ChildRun>): Figures => ({
  seconds: median(runs.map((r) => r.seconds)),
  cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
  rssMiB: median(runs.map((r) => r.maxRssKiB)) / 1024
})

const expectExit = (what: string, run: ChildRun, code: number) => {
  if (run.code !== code) throw new Error(`${what} exited ${run.code}, expected ${code}: ${run.stderr.slice(-1500)}`)
}

/** The rows of one command: wall time against the bare import and against the goal, and peak RSS. */
const commandRows = (name: string, command: Figures, bare: Figures): Array<StartupRow> => {
  const share = command.seconds / bare.seconds
  return [
    {
      figure: `${name} wall time`,
      value: command.seconds,
      unit: "s",
      bound: bare.seconds,
      boundLabel: "bare import of the dependencies",
      target: `<= ${SHARE_OF_BARE}`,
      met: share <= SHARE_OF_BARE
    },
    { figure: `  ${name} wall time`, value: command.seconds, unit: "s", bound: MAX_SECONDS, boundLabel: `goal ${MAX_SECONDS} s`, target: "<= 1.0", met: command.seconds <= MAX_SECONDS },
    { figure: `  ${name} CPU time (user + system)`, value: command.cpuSeconds, unit: "s", bound: bare.cpuSeconds, boundLabel: "bare import's CPU time", target: "", met: undefined },
    { figure: `${name} peak RSS`, value: command.rssMiB, unit: "MiB", bound: MAX_RSS_MIB, boundLabel: `goal ${MAX_RSS_MIB} MiB`, target: "<= 1.0", met: command.rssMiB <= MAX_RSS_MIB }
  ]
}

/** Builds dist/ from the current sources (the figures are of this code), then measures `runs` times. */
export async function benchStartup(opts: { runs: number }): Promise<Array<StartupRow>> {
  const built = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] })
  if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status})`)
  const dir = tempDir("startup")
  const sandbox = await spawnSandbox({ fund: { XAF: 100_000_000, XOF: 100_000_000 } })
  try {
    const file = join(dir, "refused.csv")
    writeFileSync(file, REFUSED_CSV)
    const connection = ["--base-url", sandbox.baseUrl, "--api-key", sandbox.key, "--api-secret", sandbox.secret]
    const validate = ["bin/payouts.js", "validate", file, ...connection, "--state", join(dir, "state.db"), "--out", join(dir, "out")]
    const bare = ["--input-type=module", "-e", BARE_IMPORT]
    const help = ["bin/payouts.js", "--help"]
    // Not counted: the store is created (a user's store exists already) and the files are in the page cache.
    expectExit("payouts validate (warm-up)", await runMeasuredNode(validate, root), 2)
    await runMeasuredNode(bare, root)
    const runs = { bare: [] as Array<ChildRun>, help: [] as Array<ChildRun>, validate: [] as Array<ChildRun> }
    for (let i = 0; i < opts.runs; i++) {
      runs.bare.push(await runMeasuredNode(bare, root))
      runs.help.push(await runMeasuredNode(help, root))
      runs.validate.push(await runMeasuredNode(validate, root))
    }
    runs.bare.forEach((r) => expectExit("the bare import", r, 0))
    runs.help.forEach((r) => expectExit("payouts --help", r, 0))
    runs.validate.forEach((r) => expectExit("payouts validate", r, 2))
    const bareFigures = figuresOf(runs.bare)
    return [
      { figure: "bare import of the dependencies (node, no bundle)", value: bareFigures.seconds, unit: "s", bound: undefined, boundLabel: "", target: "", met: undefined },
      { figure: "  its peak RSS", value: bareFigures.rssMiB, unit: "MiB", bound: undefined, boundLabel: "", target: "", met: undefined },
      ...commandRows("payouts --help", figuresOf(runs.help), bareFigures),
      ...commandRows("payouts validate (10 rows, refused at intake)", figuresOf(runs.validate), bareFigures)
    ]
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--runs")
  const rows = await benchStartup({ runs: at === -1 ? 7 : Number(process.argv[at + 1]) })
  for (const r of rows) {
    const ratio = r.bound === undefined ? "" : ` (${round(r.value / r.bound, 3)} of ${round(r.bound)} ${r.boundLabel}${r.target === "" ? "" : `, target ${r.target}`})`
    const verdict = r.met === undefined ? "" : r.met ? "  met" : "  MISSED"
    console.log(`${r.figure}: ${round(r.value, 3)} ${r.unit}${ratio}${verdict}`)
  }
}
