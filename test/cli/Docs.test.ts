/**
 * The manual and the help agree (issue 33): every command and every option the help shows is
 * explained somewhere in docs/; every `payouts ...` command line of the docs (code
 * blocks and inline code) names a real command with options that command takes; and every example of
 * the docs' code blocks runs as written against a sandbox, showing the output the docs show.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = join(ROOT, "bin", "payouts.js")
const COMMANDS = ["run", "validate", "retry", "watch", "approve", "reject", "resume", "resolve", "reconcile", "halt", "batches", "ledger", "workers", "wallet", "summary", "transactions", "status", "sandbox", "config", "console", "users"]
const TOPICS = ["options", "checks", "tuning"]
/** The docs show these on purpose as what is refused, or what does not exist. */
const SHOWN_REFUSED = new Set(["--bogus"])
const NOT_COMMANDS = new Set(["state"])
/** COMMAND, BATCH, FILE: a placeholder, not a word to type. */
const placeholder = (word: string) => /^[A-Z][A-Z_.]*$/.test(word)

const help = (args: ReadonlyArray<string>) => execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })
const flagsIn = (text: string) => new Set(text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])
const shortsIn = (text: string) => new Set(text.match(/(?<![\w-])-[a-z](?=[, ])/g) ?? [])

const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))]
/** The manual: docs/ (the README is its front door, not where an option is explained). */
const manual = docs.filter((file) => file.startsWith("docs")).map((file) => readFileSync(join(ROOT, file), "utf8")).join("\n")

/** Words of a command line, up to a comment, a pipe or a second command; quoted words stay whole. */
const wordsOf = (text: string) =>
  (text.split(/\s+#|\s\|\s|\s&&\s|;/)[0].match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^['"]|['"]$/g, ""))

/** Every `payouts ...` command line of the docs: lines of fenced blocks and inline code spans. */
const documentedLines = (): ReadonlyArray<{ readonly where: string; readonly words: ReadonlyArray<string> }> =>
  docs.flatMap((file) => {
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n")
    let fenced = false
    return lines.flatMap((line, i) => {
      const where = `${file}:${i + 1}`
      if (line.trimStart().startsWith("```")) {
        fenced = !fenced
        return []
      }
      if (fenced) {
        const command = /^\s*(?:\$\s+)?payouts\s+(.*)$/.exec(line)
        return command === null ? [] : [{ where, words: wordsOf(command[1]) }]
      }
      return [...line.matchAll(/`payouts\s+([^`]*)`/g)].map((span) => ({ where, words: wordsOf(span[1]) }))
    })
  })

/** The `payouts ...` lines of the docs' code blocks; after a `$ payouts ...` line, the output the docs show. */
const fencedExamples = (): ReadonlyArray<{ readonly where: string; readonly words: ReadonlyArray<string>; readonly output?: string }> =>
  docs.flatMap((file) => {
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n")
    const found: Array<{ where: string; words: ReadonlyArray<string>; output?: string }> = []
    let fenced = false
    lines.forEach((line, i) => {
      if (line.trimStart().startsWith("```")) {
        fenced = !fenced
        return
      }
      const command = /^\s*(\$\s+)?payouts\s+(.*)$/.exec(line)
      if (!fenced || command === null) return
      const output = command[1] === undefined ? undefined : lines.slice(i + 1, lines.findIndex((l, j) => j > i && (l.trimStart().startsWith("```") || l.startsWith("$ ")))).join("\n").trim()
      found.push({ where: `${file}:${i + 1}`, words: wordsOf(command[2]), ...(output === undefined || output === "" ? {} : { output }) })
    })
    return found
  })

/** `node bin/payouts.js ARGS` without blocking this process (the sandbox it talks to runs here). */
const payouts = (args: ReadonlyArray<string>, env: Record<string, string>, cwd: string) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe("the manual and the help", () => {
  const pages = new Map<string, string>([["", help(["--help"])], ...COMMANDS.map((c) => [c, help([c, "--help"])] as const), ...TOPICS.map((t) => [`help ${t}`, help(["help", t])] as const)])

  it("every command and every option the help shows is in the manual (docs/)", () => {
    const missing: Array<string> = []
    for (const command of COMMANDS) if (!new RegExp(`payouts ${command}\\b`).test(manual)) missing.push(`payouts ${command}`)
    for (const [page, text] of pages) {
      for (const flag of flagsIn(text)) if (!new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(manual)) missing.push(`${flag} (payouts ${page} --help)`)
    }
    expect(missing).toEqual([])
  })

  it("every payouts command line in the docs names a real command and options it takes", () => {
    const program = pages.get("")!
    const wrong: Array<string> = []
    const lines = documentedLines()
    expect(lines.length).toBeGreaterThan(100)
    for (const { where, words } of lines) {
      const [first, ...rest] = words
      if (first === undefined || first.startsWith("-")) {
        for (const flag of words.filter((w) => w.startsWith("-"))) if (!flagsIn(program).has(flag.split("=")[0]) && !shortsIn(program).has(flag)) wrong.push(`${where}: ${flag}`)
        continue
      }
      if (placeholder(first) || NOT_COMMANDS.has(first)) continue
      if (first === "help") {
        if (rest[0] !== undefined && !placeholder(rest[0]) && !COMMANDS.includes(rest[0]) && !TOPICS.includes(rest[0])) wrong.push(`${where}: help ${rest[0]}`)
        continue
      }
      const page = pages.get(first)
      if (page === undefined) {
        wrong.push(`${where}: no command ${first}`)
        continue
      }
      // What the command's page explains, the topics it points to, and the program's own options.
      const topics = TOPICS.filter((t) => page.replace(/\s+/g, " ").includes(`payouts help ${t}`)).map((t) => pages.get(`help ${t}`)!)
      const taken = [page, ...topics, program].join("\n") + (first === "config" ? "\n" + pages.get("run") + pages.get("watch") : "")
      for (const word of rest.filter((w) => /^--?[a-z]/.test(w))) {
        const flag = word.split("=")[0]
        if (SHOWN_REFUSED.has(flag)) continue
        if (!(flag.startsWith("--") ? flagsIn(taken).has(flag) : shortsIn(taken).has(flag))) wrong.push(`${where}: payouts ${first} ${flag}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it.scopedLive("every example in the docs' code blocks runs as written, with the output it shows", () =>
    Effect.gen(function* () {
      const readme = readFileSync(join(ROOT, "README.md"), "utf8")
      const credentials = /export PAYOUTS_BASE_URL=\S+ PAYOUTS_API_KEY=(\S+) PAYOUTS_API_SECRET=(\S+)/.exec(readme)
      expect(credentials, "the README's tour sets the sandbox's credentials").not.toBeNull()
      const sandbox = yield* startSandbox({ timeScale: 600 })
      // A folder of the user's: the sample where the README names it, and a file of settlements.
      const dir = tempDir("payouts-docs-")
      const work = join(dir, "work")
      mkdirSync(join(work, "jobs", "examples"), { recursive: true })
      const sample = readFileSync(join(ROOT, "jobs", "examples", "marketplace-settlement.csv"))
      writeFileSync(join(work, "jobs", "examples", "marketplace-settlement.csv"), sample)
      writeFileSync(join(work, "settlements.csv"), sample)
      const env = {
        // The test's sandbox (its own port) stands for the one the docs start; the README's credentials are its defaults.
        PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: credentials![1], PAYOUTS_API_SECRET: credentials![2],
        PAYOUTS_STATE: join(dir, "state.db"), HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), XDG_STATE_HOME: join(dir, "state")
      }
      const ran: Array<string> = []
      for (const example of fencedExamples()) {
        const [command] = example.words
        // A sandbox that serves until stopped is the test's own; a reference or a host to fill in is not typed as written.
        if (command === "sandbox" && !example.words.includes("--openapi")) continue
        if (example.words.some((w) => w.includes("...") || w.includes("<"))) continue
        const args = example.words.map((w) => w.replaceAll("/tmp/out", join(dir, "out")))
        const result = yield* payouts(args, env, work)
        const expected = example.words.some((w) => SHOWN_REFUSED.has(w)) ? [2] : command === "run" ? [0, 1] : [0]
        expect(expected, `${example.where}: payouts ${args.join(" ")}\n${result.stderr}`).toContain(result.code)
        if (example.output !== undefined) expect(`${result.stdout}${result.stderr}`.trim(), example.where).toBe(example.output)
        ran.push(command)
      }
      // The tour, the real service's two lines, the OpenAPI file, the refused option: all ran.
      expect(ran).toEqual(expect.arrayContaining(["--version", "wallet", "validate", "run", "transactions", "sandbox", "batches"]))
      expect(existsSync(join(work, "payments-v1.json"))).toBe(true)
    }), 180_000)
})
