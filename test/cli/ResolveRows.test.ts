/**
 * `payouts resolve` as a person works it, through the real binary (issue 31, item 4): a run whose
 * payouts half fail with a 5xx before the service records them (and `--resend-unknown never`) leaves
 * several rows unknown; the person looks without a name (major units with separators, exit 5), gets a
 * clear refusal for a decision without --reason or --by, for bad --lines, a line that does not exist
 * or needs no person, and for a set decision with no terminal and no --yes; decides for one row (still
 * exit 5, "N rows still need a person"), for a list, then for every unknown row (exit 0), in text and
 * JSON (raw minor units, ISO times); under a terminal the decision is asked once. Nobody is paid twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { cli, FAST } from "./binarySupport.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ENV = { LC_ALL: "en_US.UTF-8" }
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))
const ROOT = fileURLToPath(new URL("../..", import.meta.url))

/** 12 rows of 27,000 XAF and more: amounts a person reads with a thousands separator. */
const sellers = (prefix: string) => Array.from({ length: 12 }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(27_000 + 100 * i), phone: ordinaryPhone(300 + i) }))

interface LookRow {
  readonly line: number
  readonly state: string
  readonly amount_minor: number
  readonly currency: string
  readonly since: string
  readonly needs_person: boolean
  readonly why: string
}

/** A batch left with several unknown rows, the sandbox's faults cleared for what follows. */
const unknownBatch = (prefix: string) =>
  Effect.gen(function* () {
    const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_before=0.5,seed=7" })
    const dir = tempDir("payouts-resolve-rows-")
    const state = join(dir, "state.db")
    const file = writeCsv(dir, `${prefix}.csv`, sellers(prefix))
    // The deadline ends the run even when the last failed request has no witness answered after it.
    const first = yield* cli(sandbox, state, ["run", file, ...FAST, "--resend-unknown", "never", "--reconcile-deadline", "10s", "--json"], ENV)
    expect(first.code, first.stderr).toBe(5)
    yield* admin(sandbox).faults("")
    const batch = String(JSON.parse(first.stdout).batch_id)
    return { sandbox, state, batch }
  })

const look = (sandbox: Sandbox, state: string, batch: string) =>
  Effect.map(cli(sandbox, state, ["resolve", batch, "--json"], ENV), (r) => ({ ...r, json: JSON.parse(r.stdout) as { rows: Array<LookRow>; still_need_person: { count: number }; exit_code: number } }))

/** Runs the binary under a pseudo-terminal (util-linux `script`), typing `answer` once the question shows. */
const underTerminal = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>, answer: string) =>
  Effect.promise(
    () =>
      new Promise<{ code: number; output: string }>((ok) => {
        const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
        const child = spawn("script", ["-qec", command, "/dev/null"], {
          cwd: ROOT,
          env: { ...process.env, ...ENV, PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_STATE: state, NO_COLOR: "1" },
          stdio: ["pipe", "pipe", "pipe"]
        })
        let output = ""
        let answered = false
        const seen = (d: Buffer) => {
          output += d
          if (!answered && output.includes('Type "yes"')) {
            answered = true
            // script(1) ends when its input does: the answer, then the end of input.
            child.stdin.end(`${answer}\n`)
          }
        }
        child.stdout.on("data", seen)
        child.stderr.on("data", seen)
        const stuck = setTimeout(() => child.kill("SIGKILL"), 120_000)
        child.on("close", (code) => {
          clearTimeout(stuck)
          ok({ code: code ?? -1, output })
        })
      })
  )

const hasScript = spawnSync("script", ["--version"]).status === 0

describe("payouts resolve for several rows (the binary)", () => {
  it.scopedLive(
    "looks without --by; refuses what is unclear; one row, a list, then --all-unknown; exit 5 until none is left",
    () =>
      Effect.gen(function* () {
        const { sandbox, state, batch } = yield* unknownBatch("R")

        // A look needs no name: a table in major units with separators, exit 5.
        const shown = yield* cli(sandbox, state, ["resolve", batch], ENV)
        expect(shown.code, shown.stderr).toBe(5)
        expect(shown.stdout).not.toContain("minor units")
        const before = yield* look(sandbox, state, batch)
        expect(before.code).toBe(5)
        const unknown = before.json.rows.filter((r) => r.state === "unknown")
        expect(unknown.length, shown.stdout).toBeGreaterThanOrEqual(3)
        expect(before.json.still_need_person.count).toBe(unknown.length)
        expect(before.json.exit_code).toBe(5)
        for (const r of unknown) {
          expect(r.currency).toBe("XAF")
          expect(r.amount_minor).toBeGreaterThanOrEqual(27_000)
          expect(r.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
          expect(r.needs_person).toBe(true)
          const shownAmount = `${Math.floor(r.amount_minor / 1000)},${String(r.amount_minor % 1000).padStart(3, "0")} XAF`
          expect(shown.stdout).toMatch(new RegExp(`^\\s*${r.line}\\s.*${shownAmount}\\s+unknown`, "m"))
        }
        expect(shown.stdout).toContain(`${unknown.length} rows need a person`)
        const lines = unknown.map((r) => r.line)
        const [a, b, c] = lines

        // What a decision lacks, or names wrongly, is refused with the reason; nothing changes.
        const noReason = yield* cli(sandbox, state, ["resolve", batch, "--line", String(a), "--resend", "--by", "ana"], ENV)
        expect(noReason.code).toBe(2)
        expect(noReason.stderr).toContain("--reason")
        const noName = yield* cli(sandbox, state, ["resolve", batch, "--line", String(a), "--abandon", "--reason", "checked"], ENV)
        expect(noName.code).toBe(2)
        expect(noName.stderr).toContain("--by")
        const decide = ["--by", "ana", "--reason", "checked the dashboard"]
        const badSyntax = yield* cli(sandbox, state, ["resolve", batch, "--lines", `${a}-x`, "--abandon", ...decide, "--yes"], ENV)
        expect(badSyntax.code).toBe(2)
        expect(badSyntax.stderr).toContain(`"${a}-x" is not a line or a range`)
        const noSuchLine = yield* cli(sandbox, state, ["resolve", batch, "--lines", `${a},99`, "--abandon", ...decide, "--yes"], ENV)
        expect(noSuchLine.code).toBe(2)
        expect(noSuchLine.stderr).toContain("no row on line 99")
        // A range over the first and last unknown rows names paid rows in between: refused whole.
        const settled = Array.from({ length: lines[lines.length - 1] - a + 1 }, (_, i) => a + i).filter((l) => !lines.includes(l))
        if (settled.length > 0) {
          const overPaid = yield* cli(sandbox, state, ["resolve", batch, "--lines", `${a}-${lines[lines.length - 1]}`, "--abandon", ...decide, "--yes"], ENV)
          expect(overPaid.code).toBe(2)
          expect(overPaid.stderr).toContain(`line ${settled[0]} is `)
          expect(overPaid.stderr).toContain("not need a person")
        }
        const unasked = yield* cli(sandbox, state, ["resolve", batch, "--lines", `${a},${b}`, "--abandon", ...decide], ENV)
        expect(unasked.code).toBe(2)
        expect(unasked.stderr).toContain("--yes")
        expect((yield* look(sandbox, state, batch)).json.still_need_person.count).toBe(unknown.length)

        // One row resent: the others still need a person (exit 5, said with the command to look).
        const one = yield* cli(sandbox, state, ["resolve", batch, "--lines", String(a), "--resend", ...decide, "--yes"], ENV)
        expect(one.code, one.stdout + one.stderr).toBe(5)
        expect(one.stdout).toContain(`Done: line ${a}: resent`)
        expect(one.stderr).toContain(`${unknown.length - 1} rows still need a person: payouts resolve ${batch}`)

        // A list, in JSON: what was applied, and what is left.
        const two = yield* cli(sandbox, state, ["resolve", batch, "--lines", `${c},${b}`, "--abandon", ...decide, "--yes", "--json"], ENV)
        expect(two.code, two.stderr).toBe(unknown.length > 3 ? 5 : 0)
        const decided = JSON.parse(two.stdout)
        expect(decided.decision).toEqual({ kind: "abandon", lines: [b, c], declined: false })
        expect(decided.applied.map((x: { line: number; result: string }) => [x.line, x.result])).toEqual([[b, "abandoned"], [c, "abandoned"]])
        expect(decided.still_need_person.count).toBe(unknown.length - 3)

        // Every unknown row left, at once: none remains, exit 0.
        if (unknown.length > 3) {
          const rest = yield* cli(sandbox, state, ["resolve", batch, "--all-unknown", "--abandon", ...decide, "--yes"], ENV)
          expect(rest.code, rest.stdout + rest.stderr).toBe(0)
          expect(rest.stdout.match(/Done: line \d+: abandoned/g)?.length).toBe(unknown.length - 3)
          expect(rest.stderr).toContain("No row needs a person")
        }
        const after = yield* look(sandbox, state, batch)
        expect(after.code, after.stderr).toBe(0)
        expect(after.json.still_need_person.count).toBe(0)
        const none = yield* cli(sandbox, state, ["resolve", batch, "--all-unknown", "--abandon", ...decide, "--yes"], ENV)
        expect(none.code).toBe(2)
        expect(none.stderr).toContain("no row of batch")

        // Nobody was paid twice.
        expect([...countByToken(yield* admin(sandbox).payouts).values()].every((n) => n === 1)).toBe(true)
      }),
    180_000
  )

  it.scopedLive.skipIf(!hasScript)(
    "under a terminal a decision over several rows is asked once, with the rows, their count and total; no changes nothing",
    () =>
      Effect.gen(function* () {
        const { sandbox, state, batch } = yield* unknownBatch("Q")
        const unknown = (yield* look(sandbox, state, batch)).json.rows.filter((r) => r.state === "unknown")
        expect(unknown.length).toBeGreaterThanOrEqual(2)
        const [a, b] = unknown
        const args = ["resolve", batch, "--lines", `${a.line},${b.line}`, "--abandon", "--by", "ana", "--reason", "checked"]
        const total = a.amount_minor + b.amount_minor
        const totalText = `${Math.floor(total / 1000)},${String(total % 1000).padStart(3, "0")} XAF`

        const declined = yield* underTerminal(sandbox, state, args, "no")
        expect(declined.code, declined.output).toBe(2)
        expect(declined.output).toContain(`Abandon 2 rows of batch ${batch}`)
        expect(declined.output).toContain(`2 rows, ${totalText}`)
        expect(declined.output.match(/Type "yes"/g)?.length).toBe(1)
        expect(declined.output).toContain("Not decided: nothing was changed.")
        expect((yield* look(sandbox, state, batch)).json.still_need_person.count).toBe(unknown.length)

        const agreed = yield* underTerminal(sandbox, state, args, "yes")
        expect(agreed.output.match(/Type "yes"/g)?.length).toBe(1)
        expect(agreed.output).toContain(`Done: line ${a.line}: abandoned`)
        expect(agreed.output).toContain(`Done: line ${b.line}: abandoned`)
        expect(agreed.code, agreed.output).toBe(unknown.length > 2 ? 5 : 0)
        expect((yield* look(sandbox, state, batch)).json.still_need_person.count).toBe(unknown.length - 2)
      }),
    180_000
  )
})
