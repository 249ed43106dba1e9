/** Small helpers of the bench: temp dirs, free ports, counter sampling, child processes, formatting. */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { SandboxProcess } from "./sandbox.ts"

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

export interface Sample {
  readonly at: number
  readonly counters: Record<string, number>
}

/** Reads the sandbox's counters every `everyMs` until stopped; `at` is the wall clock. */
export const sampleCounters = (sandbox: SandboxProcess, everyMs = 250, baseline: Record<string, number> = {}) => {
  const samples: Array<Sample> = []
  const read = async () => {
    const counters = await sandbox.counters()
    return Object.fromEntries(Object.entries(counters).map(([k, v]) => [k, v - (baseline[k] ?? 0)]))
  }
  let running = true
  const loop = (async () => {
    while (running) {
      samples.push({ at: Date.now(), counters: await read() })
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return {
    samples,
    stop: async () => {
      running = false
      await loop
      samples.push({ at: Date.now(), counters: await read() })
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

export interface ChildRun {
  readonly code: number | null
  readonly seconds: number
  readonly maxRssKiB: number
  readonly cpuSeconds: number
  readonly stderr: string
}

/** Runs `node --require rss-probe.cjs ...args` and reports its wall time and peak RSS. */
export const runMeasuredNode = (args: ReadonlyArray<string>, cwd: string): Promise<ChildRun> =>
  new Promise((resolve, reject) => {
    const probeDir = tempDir("rss")
    const rssFile = join(probeDir, "rss")
    const start = performance.now()
    const child = spawn(process.execPath, ["--require", "./scripts/bench/rss-probe.cjs", ...args], {
      cwd,
      env: { ...process.env, BENCH_RSS_FILE: rssFile },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (d) => void (stderr += String(d)))
    child.once("error", reject)
    child.once("exit", (code) => {
      const seconds = (performance.now() - start) / 1000
      let probe = { maxRssKiB: 0, cpuMs: 0 }
      try {
        probe = JSON.parse(readFileSync(rssFile, "utf8")) as typeof probe
      } catch {
        // the child died before its exit hook
      }
      rmSync(probeDir, { recursive: true, force: true })
      resolve({ code, seconds, maxRssKiB: probe.maxRssKiB, cpuSeconds: probe.cpuMs / 1000, stderr })
    })
  })

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

/** One line of the bench's table: a figure, its bound and whether its target is met. */
export interface Figure {
  readonly figure: string
  readonly value: number
  readonly unit: string
  readonly bound: number | undefined
  readonly boundLabel: string
  readonly target: string
  readonly met: boolean | undefined
}
