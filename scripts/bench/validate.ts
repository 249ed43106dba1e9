/**
 * `payouts validate` of a big generated file through the real CLI (a child process with the rss probe),
 * against bare papaparse and bare libphonenumber over the same file in the same run, and its peak RSS
 * at 100,000 rows and at the full size (memory must stay flat with the file's size).
 *
 *   npx tsx scripts/bench/validate.ts [--rows 1000000]
 *
 * The whole process's RSS (every thread: the main one and the validation workers) includes the CLI's
 * own start, so the RSS above `payouts --help`'s, measured in the same run, is given too: that part
 * is the validation's. Rows per CPU-second (all threads) is the figure that does not depend on what
 * else the machine runs: on N free cores the rate can reach N times it.
 */
import { rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { writeCsv } from "./csv.ts"
import { bareParse, barePhones } from "./load.ts"
import { type ChildRun, round, runMeasuredNode, tempDir, type Figure } from "./measure.ts"
import { spawnSandbox } from "./sandbox.ts"

export type ValidateFigure = Figure

const root = fileURLToPath(new URL("../..", import.meta.url))
const GOAL_RATE = 100_000
const GOAL_RSS_MIB = 256
const FUND = { XAF: 100_000_000_000, XOF: 100_000_000_000 }
const log = (text: string) => console.error(`[bench validate] ${text}`)

export async function benchValidate(opts: { rows: number }): Promise<Array<ValidateFigure>> {
  const sizes = [...new Set([100_000, opts.rows])].sort((a, b) => a - b)
  const dir = tempDir("validate")
  const sandbox = await spawnSandbox({ fund: FUND })
  const figures: Array<ValidateFigure> = []
  try {
    const runs = new Map<number, ChildRun>()
    let biggest = ""
    for (const n of sizes) {
      const file = join(dir, `rows-${n}.csv`)
      log(`generating a ${n.toLocaleString("en")}-row CSV`)
      await writeCsv(file, { rows: n })
      log(`payouts validate of ${n.toLocaleString("en")} rows (the CLI, in a child process)`)
      const out = join(dir, `out-${n}`)
      const cli = await runMeasuredNode(
        ["bin/payouts.js", "validate", file, "--base-url", sandbox.baseUrl, "--api-key", sandbox.key, "--api-secret", sandbox.secret, "--state", join(dir, `state-${n}.db`), "--out", out],
        root
      )
      if (cli.code !== 0) log(`validate exited ${cli.code}: ${cli.stderr.slice(-2000)}`)
      runs.set(n, cli)
      biggest = file
    }
    log("bounds: bare papaparse, bare libphonenumber (same file)")
    const parse = await bareParse(biggest)
    const phones = await barePhones(biggest)
    const baseline = await runMeasuredNode(["bin/payouts.js", "--help"], root)
    const n = opts.rows
    const cli = runs.get(n)
    if (cli !== undefined) {
      const rate = n / cli.seconds
      const label = n.toLocaleString("en")
      figures.push(
        { figure: `payouts validate rows/s (${label} rows)`, value: rate, unit: "/s", bound: GOAL_RATE, boundLabel: "goal 100,000/s", target: ">= 1.0", met: rate >= GOAL_RATE },
        { figure: "  vs bare papaparse parse", value: rate, unit: "/s", bound: parse.perSecond, boundLabel: "papaparse rows/s", target: "", met: undefined },
        { figure: "  vs bare libphonenumber validation", value: rate, unit: "/s", bound: phones.perSecond, boundLabel: "libphonenumber numbers/s (1 thread)", target: "", met: undefined },
        { figure: "payouts validate rows per CPU-second (all threads)", value: n / cli.cpuSeconds, unit: "/s", bound: phones.perSecond, boundLabel: "libphonenumber numbers/s (1 thread)", target: "", met: undefined }
      )
    }
    for (const [size, run] of runs) {
      const label = size.toLocaleString("en")
      const rss = run.maxRssKiB / 1024
      const own = rss - baseline.maxRssKiB / 1024
      figures.push(
        { figure: `payouts validate peak RSS (${label} rows, whole process)`, value: rss, unit: "MiB", bound: GOAL_RSS_MIB, boundLabel: "goal 256 MiB", target: "<= 1.0", met: rss <= GOAL_RSS_MIB },
        { figure: `  above the CLI's own start (${label} rows)`, value: own, unit: "MiB", bound: GOAL_RSS_MIB, boundLabel: "goal 256 MiB", target: "", met: undefined }
      )
    }
    figures.push({ figure: "  the CLI's own start (payouts --help)", value: baseline.maxRssKiB / 1024, unit: "MiB", bound: undefined, boundLabel: "", target: "", met: undefined })
    return figures
  } finally {
    await sandbox.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--rows")
  const rows = at === -1 ? 1_000_000 : Number(process.argv[at + 1])
  for (const f of await benchValidate({ rows })) {
    const ratio = f.bound === undefined ? "" : ` (${round(f.value / f.bound, 3)} of ${round(f.bound)} ${f.boundLabel})`
    console.log(`${f.figure}: ${round(f.value)} ${f.unit}${ratio}${f.met === undefined ? "" : f.met ? " met" : " MISSED"}`)
  }
}
