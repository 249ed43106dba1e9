/**
 * `payouts --help` and every `payouts COMMAND --help` through the real binary: wrapped at 100 columns
 * in a pipe, without colour there, in colour under a pseudo-terminal unless NO_COLOR is set, commands
 * in groups, each command's page with its own options, examples and at most 60 lines, the options
 * commands share on `payouts help options|checks|tuning`; argument errors as one `payouts:` line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const spawned = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) =>
  Effect.async<Ran>((resume) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code: code ?? -1, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** `payouts ARGS` with stdout a pipe; NO_COLOR unset unless given. */
const piped = (args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}) =>
  spawned(process.execPath, [BIN, ...args], { NO_COLOR: undefined, ...env })

const shellQuote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`

/** `payouts ARGS` with stdout a pseudo-terminal of `columns` (util-linux `script`), as a person sees it. */
const underTerminal = (args: ReadonlyArray<string>, columns: number, env: Readonly<Record<string, string | undefined>> = {}) =>
  spawned(
    "script",
    ["-qec", `stty cols ${columns} rows 50; ${[process.execPath, BIN, ...args].map(shellQuote).join(" ")}`, "/dev/null"],
    { NO_COLOR: undefined, TERM: "xterm", ...env }
  )

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g
const widest = (text: string) => Math.max(...text.split("\n").map((line) => line.replace(/\r$/, "").length))

const TOPICS = ["options", "checks", "tuning"]
const COMMANDS = ["run", "validate", "retry", "watch", "approve", "reject", "batches", "summary", "ledger", "resume", "resolve", "reconcile", "halt", "workers", "wallet", "transactions", "status", "config", "sandbox"]

describe("payouts --help", () => {
  it.live("the program's help, every command's and every topic's fit 100 columns and 60 lines in a pipe, with no escape sequence", () =>
    Effect.gen(function* () {
      const top = yield* piped(["--help"])
      expect(top.code).toBe(0)
      expect(top.stdout).toContain("Usage: payouts COMMAND")
      for (const group of ["Pay:", "Operate:", "Inspect:", "Sandbox:", "Configure:"]) expect(top.stdout).toContain(`\n${group}\n`)
      for (const command of COMMANDS) expect(top.stdout).toMatch(new RegExp(`^  ${command} `, "m"))
      expect(top.stdout).not.toContain("--wizard")
      expect(top.stdout).toContain("--completions")
      expect(top.stdout).toContain("--version")
      const helps = yield* Effect.forEach(COMMANDS, (command) => Effect.map(piped([command, "--help"]), (ran) => ({ command, ...ran })), { concurrency: 2 })
      const topics = yield* Effect.forEach(TOPICS, (topic) => Effect.map(piped(["help", topic]), (ran) => ({ command: `help ${topic}`, ...ran })), { concurrency: 2 })
      for (const { command, code, stdout } of [{ command: "", ...top }, ...helps, ...topics]) {
        expect(code, command).toBe(0)
        expect(widest(stdout), `payouts ${command} --help`).toBeLessThanOrEqual(100)
        expect(stdout.trimEnd().split("\n").length, `payouts ${command} --help`).toBeLessThanOrEqual(60)
        expect(stdout.match(ANSI), `payouts ${command} --help`).toBeNull()
        expect(stdout, command).not.toContain("A user-defined piece of text")
        expect(stdout, command).not.toContain("This setting is optional")
      }
      const shared = topics.map((t) => t.stdout).join("\n")
      for (const { command, stdout } of helps) {
        // Examples that are real command lines of this command, with options it takes.
        const examples = stdout.slice(stdout.indexOf("\nExamples:\n") + 1, stdout.indexOf("\n\n", stdout.indexOf("\nExamples:\n") + 1))
        expect(examples, command).toMatch(new RegExp(`^  payouts ${command}( |$)`, "m"))
        for (const line of examples.split("\n").slice(1)) {
          expect(line, command).toMatch(new RegExp(`^  payouts ${command}( |$)`))
          for (const flag of line.split("#")[0].split(/\s+/).filter((word) => /^--?[a-z]/.test(word))) {
            expect(`${stdout}\n${shared}`, `${command}: ${line}`).toMatch(new RegExp(`(^|[ ,])${flag}([ ,]|$)`, "m"))
          }
        }
      }
      const run = helps.find((h) => h.command === "run")!.stdout
      expect(run).toMatch(/^Usage: payouts run \[OPTIONS\] FILE$/m)
      expect(run).toMatch(/-c, --concurrency N +Payout requests in flight at once\. Default: 8\./)
      // Shared options are explained once, on their topic's page, and the command points there.
      expect(run).not.toContain("--poll-interval")
      expect(run).not.toContain("--base-url")
      expect(run).toContain("payouts help tuning")
      expect(run).toContain("payouts help options")
      const tuning = topics.find((t) => t.command === "help tuning")!.stdout
      expect(tuning).toMatch(/--poll-interval DURATION +First status poll after submission; doubles each time\. Default: 5s\./)
      const options = topics.find((t) => t.command === "help options")!.stdout
      for (const shared of ["--base-url URL", "--api-key KEY", "--state FILE", "-p, --profile NAME", "--rate"]) expect(options).toContain(shared)
      expect(options).toContain("Short flags: -p --profile, -o --out, -j --json, -y --yes, -c --concurrency.")
      // `payouts help COMMAND` is `payouts COMMAND --help`.
      expect((yield* piped(["help", "run"])).stdout).toBe(run)
    }), 120_000)

  it.live("no arguments at all shows the program's help", () =>
    Effect.gen(function* () {
      const ran = yield* piped([])
      expect(ran.code).toBe(0)
      expect(ran.stdout).toContain("Usage: payouts COMMAND")
    }), 30_000)

  it.live("validate lists only what validation and the preflight use", () =>
    Effect.gen(function* () {
      const { stdout } = yield* piped(["validate", "--help"])
      for (const own of ["--fee-estimate", "--on-insufficient", "--skip-invalid", "--max-payout", "payouts help options"]) expect(stdout.replace(/\s+/g, " ")).toContain(own)
      for (const runOnly of ["--listen", "--concurrency", "--ledger-every", "--poll-interval", "--yes", "--stop-failure-ratio", "--callback-url"]) {
        expect(stdout).not.toContain(runOnly)
      }
    }), 30_000)

  it.live("watch lists neither --out, --json, --listen nor --yes, and refuses them as unknown options", () =>
    Effect.gen(function* () {
      const { stdout } = yield* piped(["watch", "--help"])
      for (const own of ["--schedule", "--require-approval", "--concurrency", "--log-format", "payouts help checks"]) expect(stdout.replace(/\s+/g, " ")).toContain(own)
      for (const notWatch of ["--out ", "--json", "--listen", "--yes"]) expect(stdout).not.toContain(notWatch)
      const refused = yield* piped(["watch", "--out", ROOT])
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim()).toBe("payouts: unknown option --out (see payouts watch --help)")
    }), 30_000)

  it.live("retry lists only what it honours: no --sandbox or --time-scale, refused as unknown options", () =>
    Effect.gen(function* () {
      const { stdout } = yield* piped(["retry", "--help"])
      for (const own of ["--jobs", "--out", "--json", "--concurrency", "--yes", "--notify"]) expect(stdout).toContain(own)
      for (const notRetry of ["--sandbox", "--time-scale"]) expect(stdout).not.toContain(notRetry)
      const refused = yield* piped(["retry", "3f2a9c1e", "--sandbox"])
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim()).toBe("payouts: unknown option --sandbox (see payouts retry --help)")
    }), 30_000)

  it.live("under a terminal: colour and the terminal's width; none with NO_COLOR", () =>
    Effect.gen(function* () {
      const coloured = yield* underTerminal(["run", "--help"], 100)
      expect(coloured.code).toBe(0)
      expect(coloured.stdout).toContain("\x1b[1m")
      const plain = coloured.stdout.replace(ANSI, "")
      expect(widest(plain)).toBeLessThanOrEqual(100)
      // Wider than a pipe's 80: a long description uses the room the terminal gives.
      expect(widest(plain)).toBeGreaterThan(80)
      const narrow = yield* underTerminal(["--help"], 60)
      expect(widest(narrow.stdout.replace(ANSI, ""))).toBeLessThanOrEqual(60)
      const noColour = yield* underTerminal(["run", "--help"], 100, { NO_COLOR: "1" })
      expect(noColour.code).toBe(0)
      expect(noColour.stdout.match(ANSI)).toBeNull()
      expect(noColour.stdout).toContain("Usage: payouts run")
    }), 60_000)

  it.live("an unknown option, a missing argument, an unknown command: one payouts: line, exit 2", () =>
    Effect.gen(function* () {
      for (const args of [["run", "--bogus"], ["batches", "--bogus"], ["validate"], ["bogus"], ["--wizard"], ["run", "--wizard"]]) {
        const ran = yield* piped(args)
        expect(ran.code, args.join(" ")).toBe(2)
        expect(ran.stdout, args.join(" ")).toBe("")
        const lines = ran.stderr.split("\n").filter((line) => line !== "")
        expect(lines, args.join(" ")).toHaveLength(1)
        expect(lines[0]).toMatch(/^payouts: /)
        expect(ran.stderr.match(ANSI)).toBeNull()
      }
      const unknown = yield* piped(["batches", "--bogus"])
      expect(unknown.stderr.trim()).toBe("payouts: unknown option --bogus (see payouts batches --help)")
      // Taken by @effect/cli for the FILE, it is still named as the unknown option it is.
      expect((yield* piped(["run", "--bogus"])).stderr.trim()).toBe("payouts: unknown option --bogus (see payouts run --help)")
      // @effect/cli's interactive --wizard is not offered: typed, it is an unknown option, not a prompt.
      expect((yield* piped(["--wizard"])).stderr.trim()).toBe("payouts: unknown option --wizard (see payouts --help)")
      expect((yield* piped(["batches", "--wizard"])).stderr.trim()).toBe("payouts: unknown option --wizard (see payouts batches --help)")
      const missing = yield* piped(["validate"])
      expect(missing.stderr).toContain("FILE")
    }), 60_000)

  it.live("--version and --completions still answer", () =>
    Effect.gen(function* () {
      const version = yield* piped(["--version"])
      expect(version.code).toBe(0)
      expect(version.stdout.trim()).toBe("0.1.0")
      const completions = yield* piped(["--completions", "bash"])
      expect(completions.code).toBe(0)
      expect(completions.stdout).toContain("payouts")
      expect(completions.stdout).toContain("validate")
    }), 30_000)
})
