/**
 * The sandbox for the bench: `payouts sandbox` of HEAD's build in a child process (port 0), so both
 * builds measured pay the same service; its counters are read from the admin API (/__sandbox/faults).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { createInterface } from "node:readline"
import type { Build } from "./measure.ts"

export interface SandboxOptions {
  /** --fund, e.g. "XAF=100000000,XOF=100000000" */
  readonly fund?: string
  readonly faults?: string
  readonly timeScale?: number
  readonly payoutDelay?: string
}

export interface SandboxProcess {
  readonly baseUrl: string
  readonly key: string
  readonly secret: string
  /** Connection options of every payouts command against it. */
  readonly connection: ReadonlyArray<string>
  readonly counters: () => Promise<Record<string, number>>
  readonly stop: () => Promise<void>
}

const KEY = "bench-key"
const SECRET = "bench-secret"
const FUND = "XAF=100000000000,XOF=100000000000"
const running = new Set<ChildProcess>()
// A bench that fails midway leaves no sandbox serving behind it.
process.once("exit", () => running.forEach((child) => child.kill("SIGKILL")))

export const spawnSandbox = (build: Build, options: SandboxOptions = {}): Promise<SandboxProcess> =>
  new Promise((resolve, reject) => {
    const args = [
      join(build.dir, "bin/payouts.js"), "sandbox", "--port", "0", "--key", KEY, "--secret", SECRET, "--fund", options.fund ?? FUND,
      ...(options.faults === undefined ? [] : ["--faults", options.faults]),
      ...(options.timeScale === undefined ? [] : ["--time-scale", String(options.timeScale)]),
      ...(options.payoutDelay === undefined ? [] : ["--payout-delay", options.payoutDelay])
    ]
    const child = spawn(process.execPath, args, { cwd: build.dir, stdio: ["ignore", "pipe", "pipe"] })
    running.add(child)
    let output = ""
    child.stderr!.on("data", (d) => void (output += String(d)))
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`payouts sandbox exited early (${code}): ${output}`)))
    const lines = createInterface({ input: child.stdout! })
    lines.on("line", (line) => {
      output += `${line}\n`
      const listening = /listening on (http:\/\/\S+)/.exec(line)
      if (listening === null) return
      lines.removeAllListeners("line")
      child.stdout!.resume()
      child.removeAllListeners("exit")
      const baseUrl = listening[1]
      const origin = new URL(baseUrl).origin
      const headers = { "X-API-Key": KEY, "X-API-Secret": SECRET, Accept: "application/json" }
      resolve({
        baseUrl,
        key: KEY,
        secret: SECRET,
        connection: ["--base-url", baseUrl, "--api-key", KEY, "--api-secret", SECRET],
        counters: async () => {
          const response = await fetch(`${origin}/__sandbox/faults`, { headers })
          return ((await response.json()) as { counters?: Record<string, number> }).counters ?? {}
        },
        stop: () =>
          new Promise<void>((done) => {
            running.delete(child)
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once("exit", () => done())
            child.kill("SIGTERM")
          })
      })
    })
  })
