/**
 * Profiles one `payouts run` at zero latency (the cost section's run) under `node --cpu-prof` and
 * prints where its CPU goes: the top self-time functions and the self time per source file, so a
 * change to the orchestrator's hot path is chosen from a profile rather than guessed.
 * `npx tsx scripts/bench/profile-run.ts [--rows 3000] [--top 30] [--keep DIR]` (run `npm run build` first);
 * `--rows 1000,4000 --plain [-- --no-listen ...]`: no profiler, CPU per added payout; `--profile FILE`: summarise one.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { SourceMap } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { writeCsv } from "./csv.ts"
import { freePort, runMeasuredNode, tempDir } from "./measure.ts"
import { spawnSandbox } from "./sandbox.ts"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1]
}

/** Self time (ms) per node id, from the samples and their time deltas. */
const selfTimes = (profile: Profile) => {
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000))
  return self
}

const shortUrl = (url: string) => url.replace(/^.*\/node_modules\//, "~/").replace(/^.*\/(dist|src)\//, "$1/")

const maps = new Map<string, SourceMap | null>()
/** The original source of a bundled frame (through dist/'s source maps), as `src/run/X.ts:line`. */
const original = (frame: ProfileNode["callFrame"]): string | undefined => {
  if (!frame.url.startsWith("file://")) return undefined
  let map = maps.get(frame.url)
  if (map === undefined) {
    const file = `${fileURLToPath(frame.url)}.map`
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, "utf8"))) : null
    maps.set(frame.url, map)
  }
  if (map === null) return undefined
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number }
  if (entry.originalSource === undefined) return undefined
  return `${entry.originalSource.replace(/^.*?\/(src|node_modules)\//, "$1/")}:${(entry.originalLine ?? 0) + 1}`
}

/**
 * Each sample charged to the innermost frame of our own code (src/) on its stack, with everything it
 * called in libraries: which of our functions the time is spent under, where self time only shows
 * the Effect runtime's internals.
 */
const ownerTimes = (profile: Profile, self: Map<number, number>, only?: (id: number) => boolean) => {
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const owner = new Map<number, string>()
  const ownerOf = (id: number): string => {
    const known = owner.get(id)
    if (known !== undefined) return known
    const node = byId.get(id)!
    const where = original(node.callFrame)
    const up = parent.get(id)
    const result = where?.startsWith("src/") === true ? `${node.callFrame.functionName || "(anonymous)"} ${where}` : up === undefined ? "(no frame of ours)" : ownerOf(up)
    owner.set(id, result)
    return result
  }
  const times = new Map<string, number>()
  for (const [id, ms] of self) if (only === undefined || only(id)) times.set(ownerOf(id), (times.get(ownerOf(id)) ?? 0) + ms)
  return times
}

/** Library areas whose inclusive time (any frame of theirs on the stack) says where a run's CPU goes. */
const AREAS: ReadonlyArray<readonly [string, RegExp]> = [
  ["SQL (@effect/sql, better-sqlite3)", /node_modules\/(@effect\/sql|better-sqlite3)/],
  ["HTTP client (@effect/platform client, undici)", /node_modules\/(undici|@effect\/platform\/src\/(internal\/)?HttpClient|@effect\/platform-node\/src\/.*Undici)/i],
  ["HTTP server (webhooks)", /(node:_http_server|@effect\/platform\/src\/(internal\/)?(HttpServer|HttpRouter|HttpApp)|@effect\/platform-node\/src\/.*HttpServer)/],
  ["Schema (ParseResult, Schema)", /node_modules\/effect\/src\/(ParseResult|Schema)\.ts/],
  ["Streams (channel executor)", /node_modules\/effect\/src\/internal\/(channel|stream)/],
  ["intake (src/intake)", /^src\/intake\//],
  ["outputs (src/output)", /^src\/output\//]
]

const areaTimes = (profile: Profile, self: Map<number, number>) => {
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const memo = new Map<number, Set<string>>()
  const areasOf = (id: number): Set<string> => {
    const known = memo.get(id)
    if (known !== undefined) return known
    const node = byId.get(id)!
    const up = parent.get(id)
    const result = new Set(up === undefined ? [] : areasOf(up))
    const where = original(node.callFrame) ?? node.callFrame.url
    for (const [name, pattern] of AREAS) if (pattern.test(where)) result.add(name)
    memo.set(id, result)
    return result
  }
  const times = new Map<string, number>()
  for (const [id, ms] of self) for (const area of areasOf(id)) times.set(area, (times.get(area) ?? 0) + ms)
  return { times, areasOf }
}

/** The top `top` functions by self time, and self time per file, as text. */
export const summarise = (profile: Profile, top: number): string => {
  const self = selfTimes(profile)
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const byFunction = new Map<string, number>()
  const byFile = new Map<string, number>()
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0
    if (ms === 0) continue
    const { functionName, url, lineNumber } = node.callFrame
    const where = url === "" ? "" : ` ${original(node.callFrame) ?? `${shortUrl(url)}:${lineNumber + 1}`}`
    const key = `${functionName === "" ? "(anonymous)" : functionName}${where}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms)
    const file = url === "" ? functionName : (original(node.callFrame)?.replace(/:\d+$/, "") ?? shortUrl(url))
    byFile.set(file, (byFile.get(file) ?? 0) + ms)
  }
  const lines = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`)
  const owners = ownerTimes(profile, self)
  const areas = areaTimes(profile, self)
  return [
    `total sampled ${total.toFixed(0)} ms`, "",
    "top self time by function:", ...lines(byFunction), "",
    "self time by original file:", ...lines(byFile), "",
    "time under the innermost function of ours (src/) on the stack:", ...lines(owners), "",
    "inclusive time by area (a frame of the area on the stack):", ...lines(areas.times), "",
    "Schema's time under the innermost function of ours:", ...lines(ownerTimes(profile, self, (id) => areas.areasOf(id).has(AREAS[3][0])))
  ].join("\n")
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv.includes("--profile")) {
  // Summarise a profile already taken (of the dist/ it was taken with).
  console.log(summarise(JSON.parse(readFileSync(arg("profile", ""), "utf8")) as Profile, Number(arg("top", "30"))))
} else if (import.meta.url === `file://${process.argv[1]}`) {
  // --rows 1000,4000 --plain: no profiler, the CPU per added payout between the sizes (the start left out).
  const sizes = arg("rows", "3000").split(",").map(Number)
  const plain = process.argv.includes("--plain")
  const top = Number(arg("top", "30"))
  const extra = process.argv.includes("--") ? process.argv.slice(process.argv.indexOf("--") + 1) : []
  // --root DIR: another checkout's build (e.g. a git worktree of the commit before), to compare in one session.
  const root = arg("root", new URL("../..", import.meta.url).pathname)
  const points: Array<{ rows: number; cpu: number }> = []
  for (const rows of sizes) {
    const dir = tempDir("profile-run")
    const profDir = arg("keep", join(dir, "prof"))
    mkdirSync(profDir, { recursive: true })
    // As the cost section's run: real time, payouts final 10 ms after acceptance, webhooks to --listen.
    const sandbox = await spawnSandbox({ fund: { XAF: 100_000_000_000, XOF: 100_000_000_000 }, payoutDelaySeconds: 0.01, webhookRetryMillis: 200 })
    try {
      const file = join(dir, "batch.csv")
      await writeCsv(file, { rows, market: 0, prefix: `prof${rows}-${Date.now()}-` })
      const port = await freePort()
      const cli = await runMeasuredNode(
        [
          ...(plain ? [] : ["--cpu-prof", "--cpu-prof-dir", profDir]),
          "bin/payouts.js", "run", file, "--base-url", sandbox.baseUrl, "--api-key", sandbox.key, "--api-secret", sandbox.secret,
          "--state", join(dir, "state.db"), "--out", join(dir, "out"), "--concurrency", "32", "--poll-interval", "100ms", "--poll-max", "400ms",
          "--reconcile-grace", "0s", ...(extra.includes("--no-listen") ? [] : ["--listen", `127.0.0.1:${port}`]), ...extra.filter((a) => a !== "--no-listen")
        ],
        root
      )
      points.push({ rows, cpu: cli.cpuSeconds })
      console.log(`payouts run of ${rows}: exit ${cli.code}, ${cli.seconds.toFixed(1)} s wall, ${cli.cpuSeconds.toFixed(2)} s CPU (${((cli.cpuSeconds * 1e3) / rows).toFixed(2)} ms/payout), ${(cli.maxRssKiB / 1024).toFixed(0)} MiB peak`)
      if (cli.code !== 0) console.log(cli.stderr.slice(-1500))
      const name = plain ? undefined : readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"))
      if (name !== undefined) console.log(summarise(JSON.parse(readFileSync(join(profDir, name), "utf8")) as Profile, top))
    } finally {
      await sandbox.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]
    const b = points[i]
    console.log(`CPU per added payout, ${a.rows} -> ${b.rows}: ${(((b.cpu - a.cpu) * 1e3) / (b.rows - a.rows)).toFixed(2)} ms`)
  }
}
