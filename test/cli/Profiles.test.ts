/**
 * Profiles and `payouts config` (issue 16, item 6), through the real binary with XDG_CONFIG_HOME in a
 * temp dir: a profile's connection pays a batch against the sandbox, flag > environment > profile >
 * default, secrets never printed, a readable file with a secret refused, a live profile never pays
 * unasked, every bad file one line naming the file, the profile and the key.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

interface Finished {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The binary with a home of its own: no PAYOUTS_* nor XDG_CONFIG_HOME of the caller leaks in. */
const payouts = (home: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.promise(
    () =>
      new Promise<Finished>((ok) => {
        const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PAYOUTS_") && !name.startsWith("XDG_")))
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd: ROOT,
          env: { ...inherited, XDG_CONFIG_HOME: join(home, "config"), PAYOUTS_STATE: join(home, "state.db"), NO_COLOR: "1", ...env },
          // stdin is not a terminal: what a script, cron or CI sees.
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (d) => (stdout += d))
        child.stderr.on("data", (d) => (stderr += d))
        child.on("close", (code) => ok({ code: code ?? -1, stdout, stderr }))
      })
  )

const writeConfig = (home: string, name: "config.json" | "config.toml", content: unknown, mode = 0o600) => {
  const dir = join(home, "config", "payouts")
  mkdirSync(dir, { recursive: true })
  const file = join(dir, name)
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2))
  chmodSync(file, mode)
  return file
}

const connection = (sandbox: Sandbox) => ({ base_url: sandbox.baseUrl, api_key: sandbox.key, api_secret: sandbox.secret })

/** Short timings so a run against the sandbox ends in seconds (from the profile, not flags). */
const FAST = { poll_interval: "100ms", poll_max: "300ms", reconcile_grace: "1s", lease_ttl: "3s", request_timeout: "2s" }

const batch = (home: string) =>
  writeCsv(home, "pay.csv", [
    { id: "P-1", amount: "5000", phone: ordinaryPhone(1) },
    { id: "P-2", amount: "6000", phone: ordinaryPhone(2) }
  ])

interface Shown {
  readonly key: string
  readonly value: string | null
  readonly source: string
  readonly from: string
}

const settingsOf = (stdout: string): Record<string, Shown> =>
  Object.fromEntries((JSON.parse(stdout).settings as Array<Shown>).map((s) => [s.key, s]))

describe("profiles and payouts config", () => {
  it.scopedLive(
    "PAYOUTS_PROFILE selects a profile whose base URL, credentials and run options pay a batch against the sandbox",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const home = tempDir("payouts-profile-")
        writeConfig(home, "config.json", { profiles: { rehearsal: { ...connection(sandbox), ...FAST }, other: { base_url: "http://127.0.0.1:9/v1" } } })
        const file = batch(home)
        const run = yield* payouts(home, ["run", file, "--json"], { PAYOUTS_PROFILE: "rehearsal" })
        expect(run.code, run.stderr).toBe(0)
        expect(JSON.parse(run.stdout).counts).toEqual({ completed: 2 })
        expect((yield* admin(sandbox).payouts).length).toBe(2)
        for (const secret of [sandbox.key, sandbox.secret]) expect(run.stdout + run.stderr).not.toContain(secret)
      }),
    90_000
  )

  it.scopedLive(
    "a flag beats the environment, which beats the profile, which beats the default: shown by payouts config and used by validate",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const home = tempDir("payouts-profile-")
        const secrets = { api_key: "key-IN-THE-PROFILE-4242", api_secret: "secret-IN-THE-PROFILE-4343" }
        const configFile = writeConfig(home, "config.json", {
          profiles: { p: { base_url: "http://127.0.0.1:9/v1", ...secrets, concurrency: 3, rate: 4, poll_max: "1m" } }
        })
        const env = { PAYOUTS_RATE: "5", PAYOUTS_POLL_MAX: "2m" }
        const shown = yield* payouts(home, ["config", "--profile", "p", "--poll-max", "3m", "--json"], env)
        expect(shown.code, shown.stderr).toBe(0)
        expect(JSON.parse(shown.stdout).profile).toEqual({ name: "p", selected_by: "flag", file: configFile, live: false })
        const settings = settingsOf(shown.stdout)
        expect(settings.poll_max).toMatchObject({ value: "3m", source: "flag" })
        expect(settings.rate).toMatchObject({ value: "5", source: "environment", from: "environment PAYOUTS_RATE" })
        expect(settings.concurrency).toMatchObject({ value: "3", source: "profile", from: "profile p" })
        expect(settings.poll_interval).toMatchObject({ value: "5s", source: "default" })
        expect(settings.api_key).toMatchObject({ source: "profile" })
        expect(settings.api_key.value).toMatch(/^\*+ \(sha256:[0-9a-f]{12}\)$/)
        expect(settings.api_secret.value).toMatch(/^\*+$/)

        const table = yield* payouts(home, ["config", "--api-secret", "secret-ON-THE-FLAG-77"], { ...env, PAYOUTS_PROFILE: "p" })
        expect(table.code, table.stderr).toBe(0)
        expect(table.stdout).toContain("Profile: p (PAYOUTS_PROFILE)")
        expect(table.stdout).toMatch(/--rate +5 +environment PAYOUTS_RATE/)
        expect(table.stdout).toMatch(/--concurrency +3 +profile p/)
        expect(table.stdout).toMatch(/--api-secret +\*+ +flag --api-secret/)
        for (const secret of [...Object.values(secrets), "secret-ON-THE-FLAG-77"]) {
          expect(shown.stdout + shown.stderr + table.stdout + table.stderr).not.toContain(secret)
        }

        // The same order where it matters: the profile's unreachable URL loses to the environment's, which
        // loses to the flag's.
        const file = batch(home)
        const good = { PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret }
        const byEnv = yield* payouts(home, ["validate", file, "--profile", "p"], { ...good, PAYOUTS_BASE_URL: sandbox.baseUrl })
        expect(byEnv.code, byEnv.stderr).toBe(0)
        const byFlag = yield* payouts(home, ["validate", file, "--profile", "p", "--base-url", sandbox.baseUrl], { ...good, PAYOUTS_BASE_URL: "http://127.0.0.1:9/v1" })
        expect(byFlag.code, byFlag.stderr).toBe(0)
        const byProfile = yield* payouts(home, ["validate", file, "--profile", "p"], good)
        expect(byProfile.code, byProfile.stderr).toBe(3)
        expect(byProfile.stderr).toContain("cannot reach the service")
      }),
    90_000
  )

  it.live("a file others can read is refused when it holds a secret, naming the file; a secret read from the environment it names is not in it", () =>
    Effect.gen(function* () {
      const home = tempDir("payouts-profile-")
      const secret = "k-WORLD-READABLE-9191"
      const file = writeConfig(home, "config.json", { profiles: { live: { base_url: "https://api.example.com/v1", api_key: secret } } }, 0o644)
      const refused = yield* payouts(home, ["config", "--profile", "live"])
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim().split("\n")).toEqual([
        `payouts: config file ${file}: holds a secret (profile "live", key "api_key") but others can read it (mode 644): run chmod 600 ${file}, or read it from the environment with api_key_env`
      ])
      expect(refused.stdout + refused.stderr).not.toContain(secret)

      writeConfig(home, "config.json", { profiles: { live: { base_url: "https://api.example.com/v1", api_key_env: "MY_LIVE_KEY" } } }, 0o644)
      const named = yield* payouts(home, ["config", "--profile", "live"], { MY_LIVE_KEY: secret })
      expect(named.code, named.stderr).toBe(0)
      expect(named.stdout).toMatch(/--api-key +\*+ \(sha256:[0-9a-f]{12}\) +profile live \(MY_LIVE_KEY\)/)
      expect(named.stdout).not.toContain(secret)
      const unset = yield* payouts(home, ["wallet", "--profile", "live"], { PAYOUTS_API_SECRET: "s" })
      expect(unset.code).toBe(2)
      expect(unset.stderr).toContain(`profile "live" reads api_key from MY_LIVE_KEY, which is not set`)
    }))

  it.scopedLive(
    "a live profile without a terminal and without --yes is refused before paying (exit 2, nothing sent); with --yes it pays",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const home = tempDir("payouts-profile-")
        writeConfig(home, "config.json", { profiles: { live: { live: true, ...connection(sandbox), ...FAST } } })
        const file = batch(home)
        const refused = yield* payouts(home, ["run", file, "--profile", "live"])
        expect(refused.code, refused.stderr).toBe(2)
        expect(refused.stderr).toContain(`profile "live" is marked live`)
        expect(refused.stderr).toContain("pass --yes")
        expect(yield* admin(sandbox).payouts).toEqual([])

        const shown = yield* payouts(home, ["config", "--profile", "live"])
        expect(shown.stdout).toContain("Live: paying asks for confirmation")

        // watch has no one to ask: a live profile needs each batch approved by a person.
        const jobs = join(home, "jobs")
        mkdirSync(jobs)
        copyFileSync(file, join(jobs, "live.csv"))
        const watched = yield* payouts(home, ["watch", jobs, "--once", "--profile", "live"])
        expect(watched.code, watched.stderr).toBe(2)
        expect(watched.stderr).toContain("needs --require-approval")
        expect(yield* admin(sandbox).payouts).toEqual([])

        const paid = yield* payouts(home, ["run", file, "--profile", "live", "--yes", "--json"])
        expect(paid.code, paid.stderr).toBe(0)
        expect((yield* admin(sandbox).payouts).length).toBe(2)
      }),
    90_000
  )

  it.live("a TOML file is read too; every bad file is one line naming the file, the profile and the key (exit 2)", () =>
    Effect.gen(function* () {
      const home = tempDir("payouts-profile-")
      const toml = writeConfig(home, "config.toml", `[profiles.staging]\nbase_url = "https://staging.example.com/v1"\nconcurrency = 2\nsettle = "3s"\n`)
      const read = yield* payouts(home, ["config", "--profile", "staging", "--json"])
      expect(read.code, read.stderr).toBe(0)
      expect(settingsOf(read.stdout).concurrency).toMatchObject({ value: "2", source: "profile" })
      expect(settingsOf(read.stdout).settle).toMatchObject({ value: "3s", source: "profile" })

      const refusedWith = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
        Effect.map(payouts(home, args, env), (r) => {
          expect(r.code, r.stderr).toBe(2)
          expect(r.stdout).toBe("")
          const lines = r.stderr.trim().split("\n")
          expect(lines.length, r.stderr).toBe(1)
          return lines[0]
        })
      expect(yield* refusedWith(["wallet", "--profile", "prod"])).toBe(`payouts: config file ${toml}: no profile "prod" (profiles: staging)`)
      expect(yield* refusedWith(["wallet"], { PAYOUTS_PROFILE: "prod" })).toContain(`no profile "prod"`)

      writeConfig(home, "config.toml", `[profiles.staging]\nconcurency = 2\n`)
      expect(yield* refusedWith(["config", "--profile", "staging"])).toBe(`payouts: config file ${toml}: profile "staging", key "concurency": unknown key (payouts config lists the settings)`)
      writeConfig(home, "config.toml", `[profiles.staging]\npoll_interval = "5"\n`)
      expect(yield* refusedWith(["config", "--profile", "staging"])).toContain(`profile "staging", key "poll_interval": "5" is not a duration`)
      writeConfig(home, "config.toml", `[profiles.staging]\nbase_url = "https://staging.example.com"\n`)
      expect(yield* refusedWith(["config", "--profile", "staging"])).toContain(`profile "staging", key "base_url": must end with /v1`)
      writeConfig(home, "config.toml", `[profiles.staging]\nbase_url = "https://x/v1\n`)
      expect(yield* refusedWith(["config", "--profile", "staging"])).toContain(`config file ${toml}: not valid TOML at line 2, column`)

      const json = writeConfig(home, "config.json", `{"profiles": {"a": {"rate": 2,}}}`)
      expect(yield* refusedWith(["config", "--profile", "a"])).toContain(`config files ${json} and ${toml} both exist`)
    }))
})
