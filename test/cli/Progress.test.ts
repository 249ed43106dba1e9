/**
 * Progress through the real binary (issue 16, item 2). Under a pseudo-terminal (`script`): a bar per
 * phase (submitting, then tracking to final) with its rate, ETA and the time elapsed, failed and
 * cancelled counted apart, and every message on its own line once the screen is drawn, Ctrl-C's
 * included. Off a terminal: plain `progress:` lines with the same figures.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, until } from "./binarySupport.ts"

const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))
const TEST = { failure: "+237670000002", delayed: "+237670000003", cancelled: "+237670000004" }
/** Slow enough sending (rate) that the submitting phase is seen; fast polling for the tracking phase. */
const pace = (rate: number) => ["--yes", "--rate", String(rate), "--progress-every", "150ms", "--poll-interval", "100ms", "--poll-max", "300ms", "--reconcile-grace", "1s", "--request-timeout", "5s"]

/** 40 ordinary rows, one failing, one cancelled, one delayed (30 sandbox minutes: seconds of tracking). */
const batch = (dir: string) =>
  writeCsv(dir, "progress.csv", [
    ...Array.from({ length: 40 }, (_, i) => ({ id: `P${i}`, amount: String(1000 + i), phone: ordinaryPhone(i) })),
    { id: "F1", amount: "900", phone: TEST.failure },
    { id: "C1", amount: "901", operator: "carrier2_cm", phone: TEST.cancelled },
    { id: "D1", amount: "902", phone: TEST.delayed }
  ])

/** What a terminal shows after the bytes: carriage return, erase to end of line, cursor up, newline. */
const screen = (raw: string): ReadonlyArray<string> => {
  const lines: Array<string> = [""]
  let row = 0
  let col = 0
  // eslint-disable-next-line no-control-regex
  for (const token of raw.match(/\x1b\[[0-9]*[A-Za-z]|[\s\S]/g) ?? []) {
    if (token === "\r") col = 0
    else if (token === "\n") {
      row += 1
      col = 0
      if (lines.length <= row) lines.push("")
    } else if (token === "\x1b[K") lines[row] = lines[row].slice(0, col)
    else if (token === "\x1b[1A") row = Math.max(0, row - 1)
    else if (token.startsWith("\x1b[")) continue
    else {
      lines[row] = lines[row].padEnd(col).slice(0, col) + token + lines[row].slice(col + 1)
      col += 1
    }
  }
  return lines
}

/** `payouts ARGS` under a pseudo-terminal 100 columns wide; everything it drew, as the terminal got it. */
const underTerminal = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>) => {
  const command = `stty cols 100 rows 40; exec ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(" ")}`
  const child: ChildProcess = spawn("script", ["-qec", command, "/dev/null"], {
    env: {
      ...process.env,
      PAYOUTS_BASE_URL: sandbox.baseUrl,
      PAYOUTS_API_KEY: sandbox.key,
      PAYOUTS_API_SECRET: sandbox.secret,
      PAYOUTS_STATE: state,
      LC_ALL: "C.UTF-8",
      NO_COLOR: "1"
    },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (d) => (output += d))
  child.stderr?.on("data", (d) => (output += d))
  const exited = new Promise<number>((ok) => child.on("close", (code) => ok(code ?? -1)))
  return { child, output: () => output, exit: Effect.promise(() => exited) }
}

const terminal = (sandbox: Sandbox, state: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => underTerminal(sandbox, state, args)),
    (t) => Effect.sync(() => t.child.exitCode === null && t.child.kill("SIGKILL"))
  )

const BAR = /^(submitting|tracking {3})\[[#-]+\] /

describe("progress (the binary)", () => {
  it.scopedLive(
    "on a terminal: a bar per phase with rate, ETA and elapsed time, failed and cancelled apart, every message on its own line",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 600 })
        const dir = tempDir("payouts-progress-")
        const run = yield* terminal(sandbox, join(dir, "state.db"), ["run", batch(dir), ...pace(15)])
        const code = yield* run.exit
        const raw = run.output()
        expect(code, raw).toBe(1)
        // Both phases were drawn in place, with a bar, a count, a rate, an ETA and the time elapsed.
        expect(raw).toMatch(/\[Ksubmitting \[#*-+\] \d+\/43 {2}\d+\.\d\/s {2}eta (\d+s|--) {2}elapsed 0:\d\d/)
        expect(raw).toMatch(/\[Ktracking {3}\[#*-*\] \d+\/43 final {2}\d+\.\d\/s {2}eta (\d+s|--) {2}elapsed 0:\d\d/)
        // While the delayed row was tracked, the failed and cancelled rows were already counted apart.
        expect(raw).toMatch(/\d+ completed, 1 failed, 1 cancelled, 1 pending/)
        const shown = screen(raw)
        // The last figures stay on screen; every message starts its own line, none shares one with a bar.
        const done = shown.findIndex((l) => l.startsWith("Finished (exit 1): "))
        expect(done, shown.join("\n")).toBeGreaterThan(0)
        expect(shown[done]).toMatch(/^Finished \(exit 1\): (?=.*paid 41)(?=.*failed 1)(?=.*cancelled 1)/)
        expect(shown[done - 2]).toMatch(/^tracking {3}\[#+\] 43\/43 final/)
        expect(shown[done - 1]).toBe("           41 completed, 1 failed, 1 cancelled, 0 pending")
        expect(shown.filter((l) => BAR.test(l))).toHaveLength(1)
        expect(shown.find((l) => l.includes("Balance preflight:"))).toBe("Balance preflight:")
        for (const line of shown) expect(line.length, line).toBeLessThan(100)
      })
  )

  it.scopedLive("on a terminal, Ctrl-C: the interrupt message on a line of its own, exit 3", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 600 })
      const dir = tempDir("payouts-progress-")
      const run = yield* terminal(sandbox, join(dir, "state.db"), ["run", batch(dir), ...pace(5)])
      yield* until("the submitting bar", Effect.sync(() => /submitting \[#*-+\] [1-9]/.test(run.output())), 90_000)
      // The terminal's own Ctrl-C: the pseudo-terminal turns it into SIGINT and echoes ^C.
      run.child.stdin?.write("\x03")
      const code = yield* run.exit
      const shown = screen(run.output())
      expect(code, run.output()).toBe(3)
      // The bar was cleared for the message (the terminal's ^C echo with it), drawn again at most once below it.
      const at = shown.indexOf("Interrupted: no new payouts sent; finishing the requests in flight. Run again to resume.")
      expect(at, shown.join("\n")).toBeGreaterThan(0)
      expect(shown.slice(0, at).filter((l) => BAR.test(l) || l.includes("^C"))).toEqual([])
      expect(shown.filter((l) => BAR.test(l)).length).toBeLessThanOrEqual(1)
    })
  )

  it.scopedLive("off a terminal: plain progress: lines per phase, failed and cancelled apart, the tracking rate", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 600 })
      const dir = tempDir("payouts-progress-")
      const run = yield* cli(sandbox, join(dir, "state.db"), ["run", batch(dir), ...pace(15)], { LC_ALL: "C.UTF-8" })
      expect(run.code, run.stderr).toBe(1)
      const lines = run.stderr.split("\n").filter((l) => l.startsWith("progress: "))
      const fields = /^progress: (submitting \d+\/43|tracking \d+\/43 final) \(\d+\.\d\/s, eta (\d+s|--)\) \| completed \d+ \| failed \d+ \| cancelled \d+ \| expired 0 \| pending \d+ \| unknown 0 \| skipped 0 \| elapsed \d+s$/
      for (const line of lines) expect(line).toMatch(fields)
      expect(lines.some((l) => l.startsWith("progress: submitting "))).toBe(true)
      const tracking = lines.filter((l) => l.startsWith("progress: tracking "))
      expect(tracking.some((l) => / \| failed 1 \| cancelled 1 \| expired 0 \| pending 1 \|/.test(l)), tracking.join("\n")).toBe(true)
      // Tracking has its own rate (final statuses per second) and an ETA, not the sending rate's 0.0/s.
      expect(tracking.some((l) => /\((?!0\.0\/s)\d+\.\d\/s, eta \d+s\)/.test(l)), tracking.join("\n")).toBe(true)
      // No escape sequence or carriage return off a terminal.
      expect(run.stderr).not.toContain("\r")
      expect(run.stderr).not.toContain("\x1b")
    })
  )
})
