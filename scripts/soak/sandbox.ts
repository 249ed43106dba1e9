/** Starts `sandbox-child.ts` as a separate process and reads what the soak checks from it. */
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { SandboxOptions } from "../../src/sandbox/Sandbox.ts"

export interface SandboxPayout {
  readonly reference: string
  readonly description: string
  readonly status: string
  readonly amount: number
}

export interface SoakSandbox {
  /** The relay's /v1: what the workers talk to. */
  readonly baseUrl: string
  /** The sandbox itself, for the admin endpoints (not counted as the account's requests). */
  readonly origin: string
  readonly key: string
  readonly secret: string
  readonly payouts: () => Promise<ReadonlyArray<SandboxPayout>>
  readonly invariants: () => Promise<{ readonly ok: boolean; readonly violations?: ReadonlyArray<string> }>
  readonly counters: () => Promise<Record<string, number>>
  /** When each /v1 request reached the relay (ms since the epoch). */
  readonly requestTimes: () => Promise<ReadonlyArray<number>>
  readonly stop: () => Promise<void>
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url))

export const spawnSoakSandbox = (options: SandboxOptions): Promise<SoakSandbox> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/soak/sandbox-child.ts", JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`the sandbox exited early (${code})`)))
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const info = JSON.parse(line) as { baseUrl: string; origin: string; key: string; secret: string; statsUrl: string }
      const headers = { "X-API-Key": info.key, "X-API-Secret": info.secret, Accept: "application/json" }
      const get = async (path: string) => (await (await fetch(`${info.origin}${path}`, { headers })).json()) as Record<string, unknown>
      child.removeAllListeners("exit")
      resolve({
        baseUrl: info.baseUrl,
        origin: info.origin,
        key: info.key,
        secret: info.secret,
        payouts: async () => (await get("/__sandbox/payouts")).payouts as ReadonlyArray<SandboxPayout>,
        invariants: async () => (await get("/__sandbox/invariants")) as { ok: boolean; violations?: ReadonlyArray<string> },
        counters: async () => ((await get("/__sandbox/faults")).counters ?? {}) as Record<string, number>,
        requestTimes: async () => ((await (await fetch(info.statsUrl)).json()) as { times: ReadonlyArray<number> }).times,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once("exit", () => done())
            child.kill("SIGTERM")
          })
      })
    })
  })

/** The most requests in any window [t, t + ms) of the times. */
export const maxInWindow = (times: ReadonlyArray<number>, ms: number): number => {
  const sorted = [...times].sort((a, b) => a - b)
  let best = 0
  let lo = 0
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi] - sorted[lo] >= ms) lo++
    best = Math.max(best, hi - lo + 1)
  }
  return best
}

/** The starts of the 1-second windows [t, t + 1000) holding more than `limit` requests, merged when they overlap. */
export const burstsAbove = (times: ReadonlyArray<number>, limit: number): ReadonlyArray<{ readonly at: number; readonly count: number }> => {
  const sorted = [...times].sort((a, b) => a - b)
  const out: Array<{ at: number; count: number }> = []
  let lo = 0
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi] - sorted[lo] >= 1000) lo++
    const count = hi - lo + 1
    if (count <= limit) continue
    const last = out.at(-1)
    if (last !== undefined && sorted[lo] - last.at < 1000) last.count = Math.max(last.count, count)
    else out.push({ at: sorted[lo], count })
  }
  return out
}
