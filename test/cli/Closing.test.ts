/**
 * Issue 31 item 7, through the real binary: every way a run ends closes with one line (or a short
 * block) that says what happened, with the counts and the command that comes next: finished,
 * refused for invalid rows, halted, paused by the stop rule, rows that need a person, and a "no" to
 * the question before paying. Never the old `Done (exit N): 5 validated`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST, start, until } from "./binarySupport.ts"
import { onTerminal } from "./terminalSupport.ts"

/** The lines from the first that starts with `head` on. */
const closing = (stderr: string, head: string | RegExp) => {
  const lines = stderr.split(/\r?\n/)
  const at = lines.findIndex((l) => (typeof head === "string" ? l.startsWith(head) : head.test(l)))
  return at < 0 ? [] : lines.slice(at).filter((l) => l.trim() !== "")
}

/** A real-time sandbox, its failing test number, and a folder with a state store. */
const setup = Effect.gen(function* () {
  const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
  const failure = (yield* admin(sandbox).testData).payout.CM.failure as string
  const dir = tempDir("payouts-closing-")
  return { sandbox, failure, dir, state: join(dir, "state.db") }
})

describe("closing lines of payouts run (the binary)", () => {
  it.scopedLive(
    "finished with the paid and failed counts, the retry command and the ledger; refused with where the errors are",
    () =>
      Effect.gen(function* () {
        const { sandbox, failure, dir, state } = yield* setup
        const file = writeCsv(dir, "mixed.csv", [
          { id: "M-1", amount: "5000", phone: ordinaryPhone(901) },
          { id: "M-2", amount: "6000", phone: ordinaryPhone(902) },
          { id: "M-3", amount: "7000", phone: failure }
        ])
        const done = yield* cli(sandbox, state, ["run", file, ...FAST])
        expect(done.code, done.stderr).toBe(1)
        expect(done.stderr).not.toContain("Done (exit")
        const batch = JSON.parse(readFileSync(join(dir, "mixed.summary.json"), "utf8")).batch_id
        expect(closing(done.stderr, "Finished")).toEqual([
          "Finished (exit 1): paid 2 (11,000 XAF), failed 1.",
          `Pay again the 1 row that ended failed: payouts retry ${batch}`,
          `Ledger:  ${join(dir, "mixed.ledger.csv")}`
        ])

        const bad = writeCsv(dir, "bad.csv", [{ id: "B-1", amount: "abc", phone: ordinaryPhone(911) }, { id: "B-2", amount: "100", phone: ordinaryPhone(912) }])
        const refused = yield* cli(sandbox, state, ["run", bad, ...FAST])
        expect(refused.code, refused.stderr).toBe(2)
        expect(refused.stderr).toContain(`Not paid (exit 2): 1 error in ${join(dir, "bad.errors.csv")}. Fix the file and run it again`)
        expect(refused.stderr).toContain("--skip-invalid")
        // Said once, by the closing line: not also as a message before it.
        expect(refused.stderr).not.toContain("Refused: nothing was paid")
      }),
    120_000
  )

  it.scopedLive(
    "halted: the rows that wait and the command that lifts the halt; a stop-rule pause: the reason and payouts resume",
    () =>
      Effect.gen(function* () {
        const { sandbox, failure, dir, state } = yield* setup
        const halt = yield* cli(sandbox, state, ["halt", "--by", "ops-ana", "--reason", "wrong file"])
        expect(halt.code, halt.stderr).toBe(0)
        const file = writeCsv(dir, "halted.csv", Array.from({ length: 5 }, (_, i) => ({ id: `H-${i}`, amount: String(1000 + i), phone: ordinaryPhone(920 + i) })))
        const halted = yield* cli(sandbox, state, ["run", file, ...FAST])
        expect(halted.code, halted.stderr).toBe(3)
        expect(halted.stderr).not.toContain("Done (exit")
        const line = closing(halted.stderr, "Halted (exit 3)")[0]
        expect(line).toMatch(/^Halted \(exit 3\): account halted by ops-ana at \S+: wrong file; 5 rows wait; payouts halt --lift --by NAME, then payouts run /)
        expect(line.endsWith(file)).toBe(true)
        yield* cli(sandbox, state, ["halt", "--lift", "--by", "ops-ana"])

        // Every payout fails: the stop rule pauses the batch after two settled failures, one row at a time.
        const failing = writeCsv(dir, "failing.csv", Array.from({ length: 8 }, (_, i) => ({ id: `F-${i}`, amount: String(2000 + i), phone: failure, name: "Fail Always" })))
        const paused = yield* cli(sandbox, state, ["run", failing, ...FAST, "--concurrency", "1", "--rate", "2", "--stop-min-settled", "2", "--stop-failure-ratio", "50%", "--breaker-failures", "0"])
        expect(paused.code, paused.stderr).toBe(3)
        const block = closing(paused.stderr, "Paused (exit 3)")
        expect(block[0], paused.stderr).toMatch(/^Paused \(exit 3\): .+; \d+ rows? waits?; payouts resume [0-9a-f]+, then payouts run /)
        expect(block.join("\n")).toMatch(/So far: paid 0, failed \d+/)
      }),
    120_000
  )

  it.scopedLive(
    "Ctrl-C: the rows that wait, what was paid so far, and the command that resumes",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-closing-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "slow.csv", Array.from({ length: 20 }, (_, i) => ({ id: `S-${i}`, amount: String(1000 + i), phone: ordinaryPhone(950 + i) })))
        const running = start(sandbox, state, ["run", file, ...FAST, "--rate", "1", "--concurrency", "1"])
        yield* Effect.addFinalizer(() => Effect.sync(() => running.child.exitCode === null && running.child.kill("SIGKILL")))
        yield* until("the first payouts", Effect.map(admin(sandbox).payouts, (p) => p.length >= 2))
        running.child.kill("SIGINT")
        const ended = yield* running.exit
        expect(ended.code, ended.stderr).toBe(3)
        const block = closing(ended.stderr, "Interrupted (exit 3)")
        expect(block[0], ended.stderr).toMatch(new RegExp(`^Interrupted \\(exit 3\\): \\d+ rows wait; resume with payouts run ${file.replaceAll(".", "\\.")}$`))
        expect(block[1]).toMatch(/^So far: paid \d+/)
        expect(block[2]).toBe(`Ledger:  ${join(dir, "slow.ledger.csv")}`)
      }),
    120_000
  )

  it.scopedLive(
    "rows that need a person: how many, and payouts resolve BATCH",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-closing-")
        const state = join(dir, "state.db")
        // Rows without ids paid, then the same rows again in a re-saved file (CRLF) under --allow-repeats:
        // their tokens are listed as payouts of the first batch, so the pre-scan holds them for a person.
        const rows = [{ amount: "3000", phone: ordinaryPhone(931) }, { amount: "4000", phone: ordinaryPhone(932) }]
        const first = writeCsv(dir, "first.csv", rows)
        expect((yield* cli(sandbox, state, ["run", first, ...FAST])).code).toBe(0)
        const again = join(dir, "again.csv")
        writeFileSync(again, writeCsvText(rows))
        const alarmed = yield* cli(sandbox, state, ["run", again, ...FAST, "--allow-repeats"])
        expect(alarmed.code, alarmed.stderr).toBe(5)
        const block = closing(alarmed.stderr, /need a person/)
        expect(block[0], alarmed.stderr).toMatch(/^2 rows need a person \(exit 5\): payouts resolve [0-9a-f]+$/)
        expect((yield* admin(sandbox).payouts).length).toBe(2)
      }),
    120_000
  )

  it.scopedLive(
    "a no to the question before paying: Not paid, nothing sent, and how to pay it",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const home = tempDir("payouts-closing-")
        // A profile marked live is asked before paying, on a terminal, even on the sandbox.
        mkdirSync(join(home, "config", "payouts"), { recursive: true })
        const config = { profiles: { prod: { live: true, base_url: sandbox.baseUrl, api_key: sandbox.key, api_secret: sandbox.secret } } }
        writeFileSync(join(home, "config", "payouts", "config.json"), JSON.stringify(config), { mode: 0o600 })
        const file = writeCsv(home, "week.csv", [{ id: "W-1", amount: "5000", phone: ordinaryPhone(941) }, { id: "W-2", amount: "6000", phone: ordinaryPhone(942) }])
        const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PAYOUTS_") && k !== "XDG_CONFIG_HOME"))
        const env = { ...inherited, NO_COLOR: "1", XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "config") }
        const declined = yield* onTerminal(home, env, ["run", file, "--profile", "prod", ...FAST], "n")
        expect(declined.code, declined.output).toBe(2)
        expect(declined.output).toContain(`Not paid: you did not confirm; nothing was sent (exit 2). To pay it: payouts run ${file}`)
        expect(declined.output).not.toContain("Not confirmed")
        expect(declined.output).not.toContain("Done (exit")
        expect(yield* admin(sandbox).payouts).toEqual([])
      }),
    120_000
  )
})

/** The CSV writeCsv writes, with CRLF line ends: the same rows in other bytes. */
const writeCsvText = (rows: ReadonlyArray<{ amount: string; phone: string }>) =>
  [
    "id,amount,currency,operator,phone,name,email",
    ...rows.map((r, i) => ["", r.amount, "XAF", "carrier1_cm", r.phone, `Seller ${i + 1}`, `seller${i + 1}@example.com`].join(","))
  ].join("\r\n") + "\r\n"
