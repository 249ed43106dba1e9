/** Small helpers of the bench: temp dirs, free ports, the built CLI as a measured child, counter sampling. */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), `payouts-bench-${prefix}-`))

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

export const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** A built CLI: its checkout's folder (bin/payouts.js starts its dist/) and a label for the table. */
export interface Build {
  readonly label: "HEAD" | "baseline"
  readonly dir: string
  readonly commit: string
}

export interface ChildRun {
  readonly code: number | null
  readonly seconds: number
  readonly cpuSeconds: number
  readonly maxRssKiB: number
  readonly stdout: string
  readonly stderr: string
}

// GNU time measures a child from outside; without it, a preloaded probe reports from inside.
const GNU_TIME = "/usr/bin/time"
const useGnuTime = existsSync(GNU_TIME)
const PROBE = fileURLToPath(new URL("./rss-probe.cjs", import.meta.url))

/** `payouts ...args` of `build` as a child process: wall time, CPU time (user + system) and peak RSS. */
export const runCli = (build: Build, args: ReadonlyArray<string>, opts: { readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number } = {}): Promise<ChildRun> =>
  new Promise((resolve, reject) => {
    const probeDir = tempDir("probe")
    const report = join(probeDir, "report")
    const node = [process.execPath, ...(useGnuTime ? [] : ["--require", PROBE]), join(build.dir, "bin/payouts.js"), ...args]
    const [command, ...argv] = useGnuTime ? [GNU_TIME, "-f", "%M %U %S", "-o", report, ...node] : node
    const start = performance.now()
    const child = spawn(command, argv, { cwd: build.dir, env: { ...process.env, ...opts.env, BENCH_RSS_FILE: report }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => void (stdout = (stdout + String(d)).slice(-64_000)))
    child.stderr.on("data", (d) => void (stderr = (stderr + String(d)).slice(-64_000)))
    const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs)
    child.once("error", reject)
    child.once("close", (code) => {
      const seconds = (performance.now() - start) / 1000
      if (timer !== undefined) clearTimeout(timer)
      let maxRssKiB = 0
      let cpuSeconds = 0
      try {
        const text = readFileSync(report, "utf8").trim()
        if (useGnuTime) {
          // The last line: GNU time writes "Command exited with non-zero status N" above it.
          const [rss, user, system] = text.split("\n").at(-1)!.split(" ").map(Number)
          maxRssKiB = rss
          cpuSeconds = user + system
        } else {
          const probe = JSON.parse(text) as { maxRssKiB: number; cpuMs: number }
          maxRssKiB = probe.maxRssKiB
          cpuSeconds = probe.cpuMs / 1000
        }
      } catch {
        // killed before it could report
      }
      rmSync(probeDir, { recursive: true, force: true })
      resolve({ code, seconds, cpuSeconds, maxRssKiB, stdout, stderr })
    })
  })

export interface Sample {
  readonly at: number
  readonly counters: Record<string, number>
}

/** Reads `read()` every `everyMs` until stopped, each sample less `baseline`; `at` is the wall clock. */
export const sampleCounters = (read: () => Promise<Record<string, number>>, everyMs = 250, baseline: Record<string, number> = {}) => {
  const samples: Array<Sample> = []
  const take = async () => {
    const counters = await read()
    samples.push({ at: Date.now(), counters: Object.fromEntries(Object.entries(counters).map(([k, v]) => [k, v - (baseline[k] ?? 0)])) })
  }
  let running = true
  const loop = (async () => {
    while (running) {
      await take()
      await sleep(everyMs)
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      await take()
      return samples
    }
  }
}

/** A counter's value at time `at`, linearly interpolated between samples. */
export const counterAt = (samples: ReadonlyArray<Sample>, key: string, at: number): number => {
  const value = (s: Sample) => s.counters[key] ?? 0
  if (samples.length === 0) return 0
  if (at <= samples[0].at) return value(samples[0])
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]
    const b = samples[i]
    if (at <= b.at) return value(a) + ((value(b) - value(a)) * (at - a.at)) / Math.max(1, b.at - a.at)
  }
  return value(samples[samples.length - 1])
}
