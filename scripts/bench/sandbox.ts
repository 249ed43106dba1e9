/** Starts `sandbox-child.ts` as a separate process and talks to its admin endpoints. */
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { SandboxOptions } from "../../src/sandbox/Sandbox.ts"

export interface SandboxProcess {
  readonly baseUrl: string
  readonly origin: string
  readonly key: string
  readonly secret: string
  /** A URL in the sandbox process that accepts webhooks (204): the callback_url of runs without --listen. */
  readonly sinkUrl: string
  readonly pid: number
  readonly counters: () => Promise<Record<string, number>>
  readonly setFaults: (faults: string) => Promise<void>
  readonly stop: () => Promise<void>
}

const root = fileURLToPath(new URL("../..", import.meta.url))

/** `nodeArgs` go to the sandbox's node before the script (e.g. `--cpu-prof` to profile it). */
export const spawnSandbox = (options: SandboxOptions, nodeArgs: ReadonlyArray<string> = []): Promise<SandboxProcess> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [...nodeArgs, "--import", "tsx", "scripts/bench/sandbox-child.ts", JSON.stringify(options)],
      { cwd: root, stdio: ["pipe", "pipe", "inherit"] }
    )
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`sandbox exited early (${code})`)))
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const info = JSON.parse(line) as { baseUrl: string; origin: string; key: string; secret: string; sinkUrl: string }
      const headers = { "X-API-Key": info.key, "X-API-Secret": info.secret, Accept: "application/json", "Content-Type": "application/json" }
      const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
        // A read of the counters may meet a keep-alive connection the sandbox closed at that moment
        // (ECONNRESET, seen once in a full run): a GET is asked again, twice at most.
        for (let attempt = 1; ; attempt++) {
          try {
            const response = await fetch(`${info.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
            return (await response.json()) as Record<string, unknown>
          } catch (error) {
            if (method !== "GET" || attempt >= 3) throw error
            await new Promise((r) => setTimeout(r, 50))
          }
        }
      }
      child.removeAllListeners("exit")
      resolve({
        ...info,
        pid: child.pid!,
        counters: async () => ((await call("GET", "/__sandbox/faults")).counters ?? {}) as Record<string, number>,
        setFaults: async (faults) => void (await call("PUT", "/__sandbox/faults", { faults })),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done()
            child.once("exit", () => done())
            child.kill("SIGTERM")
          })
      })
    })
  })
