/**
 * The advice after a refused key or an unreachable service names where the settings came from (flag,
 * environment, profile), as `payouts config` shows them, for `run`, `watch` and the account commands:
 * through the real binary, against the sandbox, with XDG_CONFIG_HOME in a temp dir.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

interface Finished {
  readonly code: number
  readonly output: string
}

/** The binary with a home of its own: no PAYOUTS_* nor XDG_* of the caller leaks in. */
const payouts = (home: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.promise(
    () =>
      new Promise<Finished>((ok) => {
        const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PAYOUTS_") && !name.startsWith("XDG_")))
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd: ROOT,
          env: { ...inherited, XDG_CONFIG_HOME: join(home, "config"), PAYOUTS_STATE: join(home, "state.db"), NO_COLOR: "1", ...env },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let output = ""
        child.stdout.on("data", (d) => (output += d))
        child.stderr.on("data", (d) => (output += d))
        child.on("close", (code) => ok({ code: code ?? -1, output }))
      })
  )

const writeConfig = (home: string, profiles: unknown) => {
  const dir = join(home, "config", "payouts")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "config.json"), JSON.stringify({ profiles }, null, 2))
  chmodSync(join(dir, "config.json"), 0o600)
}

const WRONG = "sbx_not-the-key-5150"

describe("advice that names where the settings came from", () => {
  it.scopedLive(
    "a refused key: run and watch name the key's source (profile and its variable, environment, flag), never the key",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1 })
        const home = tempDir("payouts-advice-")
        writeConfig(home, { ops: { base_url: sandbox.baseUrl, api_key_env: "OPS_KEY", api_secret: sandbox.secret } })
        const jobs = join(home, "jobs")
        mkdirSync(jobs, { recursive: true })
        const file = writeCsv(home, "pay.csv", [{ id: "A-1", amount: "5000", phone: ordinaryPhone(1) }])

        const fromProfile = "Check the API key (sha256:"
        const watched = yield* payouts(home, ["watch", jobs, "--once", "--profile", "ops"], { OPS_KEY: WRONG })
        expect(watched.code, watched.output).toBe(3)
        expect(watched.output).toContain("the service refused the key")
        expect(watched.output).toContain(fromProfile)
        expect(watched.output).toMatch(/from profile ops \(OPS_KEY\) and the secret from profile ops, and that they belong to this service \(base URL from profile ops\)/)
        expect(watched.output).toContain("payouts config shows each setting")

        const ran = yield* payouts(home, ["run", file, "--profile", "ops"], { OPS_KEY: WRONG })
        expect(ran.code, ran.output).toBe(2)
        const last = ran.output.trim().split("\n").at(-1) ?? ""
        expect(last).toMatch(/^payouts: the service at http:\/\/127\.0\.0\.1:\d+\/v1 refused the credentials/)
        expect(last).toMatch(/from profile ops \(OPS_KEY\) and the secret from profile ops/)
        expect(last).not.toContain("PAYOUTS_API_KEY")

        // The environment beats the profile, and the advice follows it.
        const byEnv = yield* payouts(home, ["watch", jobs, "--once", "--profile", "ops"], { OPS_KEY: sandbox.key, PAYOUTS_API_KEY: WRONG })
        expect(byEnv.code, byEnv.output).toBe(3)
        expect(byEnv.output).toMatch(/from environment PAYOUTS_API_KEY and the secret from profile ops/)

        // A flag beats both; an account command (no profile) says the same.
        const byFlag = yield* payouts(home, ["wallet", "--api-key", WRONG], { PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_SECRET: sandbox.secret })
        expect(byFlag.code, byFlag.output).toBe(2)
        expect(byFlag.output.trim()).toMatch(/^payouts: the service refused the credentials \(401: [^)]*\)\. Check the API key from flag --api-key and the secret from environment PAYOUTS_API_SECRET, and that they belong to this service \(base URL from environment PAYOUTS_BASE_URL\)\./)
        for (const run of [watched, ran, byEnv, byFlag]) expect(run.output).not.toContain(WRONG)
      }),
    90_000
  )

  it.live("a service out of reach: the base URL to check is named where it was set (a profile, not PAYOUTS_BASE_URL)", () =>
    Effect.gen(function* () {
      const home = tempDir("payouts-advice-")
      // Port 9 (discard) on the loopback: nothing listens, the connection is refused at once.
      writeConfig(home, { gone: { base_url: "http://127.0.0.1:9/v1", api_key: "k", api_secret: "s" } })
      const ran = yield* payouts(home, ["wallet", "--profile", "gone"])
      expect(ran.code, ran.output).toBe(3)
      expect(ran.output.trim()).toMatch(/^payouts: cannot reach the service: .*\(check the base URL, from profile gone, or try again later\)$/)
      expect(ran.output).not.toContain("PAYOUTS_BASE_URL")
      const byEnv = yield* payouts(home, ["wallet", "--profile", "gone"], { PAYOUTS_BASE_URL: "http://127.0.0.1:9/v1" })
      expect(byEnv.output.trim()).toMatch(/\(check the base URL, from environment PAYOUTS_BASE_URL, or try again later\)$/)
    }), 60_000)
})
