/**
 * Two machines (two host names, two working directories) run the same file at the same moment
 * against one PostgreSQL store (DESIGN 12): one pays, the other waits or reports; nobody is paid
 * twice. The second machine is this one under another host name (`unshare -u`, which needs root;
 * without it the test says so and runs both under this host's name).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync } from "node:fs"
import { join, resolve } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { DATABASE_URL, freshSchema, POSTGRES_ADAPTERS } from "../store/postgres.ts"
import { FAST } from "./binarySupport.ts"

const BIN = resolve("bin/payouts.js")
const canRename = spawnSync("unshare", ["-u", "true"]).status === 0
if (!canRename) console.warn("TwoMachines: `unshare -u` is not allowed here: both runs use this host's name")

const runIn = (sandbox: Sandbox, state: string, cwd: string, host: string | undefined, file: string) => {
  const env = { ...process.env, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_STATE: state, NO_COLOR: "1" }
  const args = [BIN, "run", file, "--concurrency", "4", ...FAST]
  const child: ChildProcess =
    host === undefined || !canRename
      ? spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
      : spawn("unshare", ["-u", "sh", "-c", `hostname ${host} && exec "$0" "$@"`, process.execPath, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout?.on("data", (d) => (out += d))
  child.stderr?.on("data", (d) => (out += d))
  const exited = new Promise<number>((ok) => child.on("close", (code) => ok(code ?? -1)))
  return { child, out: () => out, exit: Effect.promise(() => exited) }
}

describe.skipIf(POSTGRES_ADAPTERS.length === 0)("two machines, one PostgreSQL store", () => {
  it.scopedLive(
    "the same file run at the same moment from two hosts and two folders is paid once",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.latency=20ms-60ms" })
        const url = new URL(Redacted.value(DATABASE_URL))
        url.searchParams.set("schema", yield* freshSchema)
        const state = url.toString()
        const source = tempDir("payouts-two-")
        const rows = Array.from({ length: 30 }, (_, i) => ({ id: `M-${i + 1}`, amount: String(2000 + i), phone: ordinaryPhone(700 + i) }))
        const original = writeCsv(source, "settlements.csv", rows)
        const folders = ["machine-a", "machine-b"].map((name) => {
          const dir = join(source, name)
          mkdirSync(dir)
          copyFileSync(original, join(dir, "settlements.csv"))
          return dir
        })
        const a = runIn(sandbox, state, folders[0], undefined, join(folders[0], "settlements.csv"))
        const b = runIn(sandbox, state, folders[1], "machine-b", join(folders[1], "settlements.csv"))
        yield* Effect.addFinalizer(() => Effect.sync(() => [a, b].forEach((p) => p.child.exitCode === null && p.child.kill("SIGKILL"))))
        const codes = [yield* a.exit, yield* b.exit]
        // One paid the batch (0); the other found it taken (3) or, started after, reported it done (0).
        expect(codes.every((c) => c === 0 || c === 3), `${a.out()}\n---\n${b.out()}`).toBe(true)
        expect(codes).toContain(0)
        const counts = countByToken(yield* admin(sandbox).payouts)
        expect(counts.size).toBe(30)
        expect([...counts.values()].filter((n) => n !== 1)).toEqual([])
        // Whichever stopped at 3, a rerun from either folder finishes the batch and pays nothing more.
        const again = runIn(sandbox, state, folders[1], "machine-b", join(folders[1], "settlements.csv"))
        expect(yield* again.exit, again.out()).toBe(0)
        expect((yield* admin(sandbox).payouts).length).toBe(30)
      }),
    120_000
  )
})
