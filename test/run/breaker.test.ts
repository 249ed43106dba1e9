/**
 * The breaker does what it says (issue 31, item 2): after N consecutive failures of one operator, in
 * the order its payouts were sent, nothing new goes to that operator (requests already sent finish);
 * its rows are held, the batch ends paused naming the operator and the next command, and the other
 * operators' rows are paid. Through the real binary against the sandbox (test number +237670000002
 * fails every payout to it).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Breaker from "../../src/run/Breaker.ts"
import * as ProbeWindow from "../../src/run/ProbeWindow.ts"
import { FAST, start, until } from "../cli/binarySupport.ts"
import { ordinaryPhone, readLedger, type Seller, writeCsv } from "./support.ts"
import { admin, countByToken, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const FAILS = "+237670000002"
/** Succeeds 30 minutes (sandbox time) after it is sent: no final status within a test. */
const DELAYED = "+237670000003"

const failing = (i: number): Seller => ({ id: `KO${i}`, amount: String(1000 + i), operator: "carrier1_cm", phone: FAILS, name: "Failing Number" })
const slow = (i: number): Seller => ({ id: `SL${i}`, amount: String(3000 + i), operator: "carrier1_cm", phone: DELAYED, name: "Slow Number" })
const paying = (i: number): Seller => ({ id: `OK${i}`, amount: String(2000 + i), operator: "carrier2_cm", phone: ordinaryPhone(i) })

const sentTo = (sandbox: Sandbox, operator: string) =>
  Effect.map(admin(sandbox).payouts, (payouts) => payouts.filter((p) => (p as { operator?: string }).operator === operator).length)

/**
 * Runs FILE at a slow rate; counts the operator's payouts when the breaker's notice is seen and at the
 * end: only requests already under way when it tripped may be added (at 2 a second, at most a few).
 */
const runUntilTripped = (sandbox: Sandbox, dir: string, file: string) =>
  Effect.gen(function* () {
    const state = join(dir, "state.db")
    const run = yield* Effect.acquireRelease(
      Effect.sync(() => start(sandbox, state, ["run", file, "--yes", "--rate", "2", "--concurrency", "8", "--poll-interval", "100ms", "--poll-max", "200ms"])),
      (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
    )
    yield* until("the breaker to trip", Effect.sync(() => run.output().includes("Breaker tripped for carrier1_cm")), 120_000)
    const atTrip = yield* sentTo(sandbox, "carrier1_cm")
    const ended = yield* run.exit
    return { ended, atTrip, atEnd: yield* sentTo(sandbox, "carrier1_cm") }
  })

/** Threads a pure state through a test's steps, as the service's Ref does: each step's result back. */
const threaded = <S>(initial: S) => {
  let state = initial
  return <A>(step: (s: S) => readonly [A, S]): A => {
    const [result, next] = step(state)
    state = next
    return result
  }
}

const expectPausedByBreaker = (dir: string, name: string, output: string) => {
  const summary = JSON.parse(readFileSync(join(dir, `${name}.summary.json`), "utf8"))
  expect(summary.paused).toMatch(/^breaker tripped for carrier1_cm \(5 consecutive failures\)/)
  expect(output).toContain(`payouts resume ${summary.batch_id}`)
  return summary
}

describe("the circuit breaker", () => {
  it("counts consecutive failures in the order payouts were sent, whatever order their outcomes come in", () => {
    /** Rows 1..n sent in order; then each row's outcome, with the count threaded through. */
    const sent = (n: number, operatorOf: (idx: number) => string = () => "op") => {
      const count = threaded(Array.from({ length: n }, (_, i) => i + 1).reduce((c, idx) => Breaker.sending(c, idx, operatorOf(idx)), Breaker.empty))
      return (idx: number, failed: boolean, operatorOfEarlier?: string) => count((c) => Breaker.settled(c, idx, failed, operatorOfEarlier))
    }
    const count = sent(8)
    // Rows 2-6 fail while row 1 is still open: five in a row, row 1's late success changes nothing.
    expect([3, 5, 2, 6].map((idx) => count(idx, true)?.run)).toEqual([1, 1, 2, 2])
    expect(count(4, true)?.run).toBe(5)
    expect(count(1, false)?.run).toBe(0)
    // Another operator's row in between does not break a run; it is counted apart.
    const mixed = sent(6, (idx) => (idx === 3 ? "other" : "op"))
    expect([1, 2, 4, 5].map((idx) => mixed(idx, true)?.run)).toEqual([1, 2, 3, 4])
    expect(mixed(3, true)).toEqual({ operator: "other", run: 1 })
    // A success does, wherever its outcome comes in the order of answers.
    const broken = sent(4)
    expect([1, 3, 4, 2].map((idx) => broken(idx, idx !== 2)?.run)).toEqual([1, 1, 2, 0])
    // A row an earlier run sent: its operator read back, placed before this run's rows.
    expect(broken(0, true, "op")?.run).toBe(2)
    expect(count(99, true)).toBeUndefined()
  })

  it.scopedLive("an operator whose payouts all fail: held after 5 consecutive failures, nothing new sent to it, paused (exit 3)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-breaker-")
      const file = writeCsv(dir, "failing.csv", Array.from({ length: 40 }, (_, i) => failing(i)))
      const { ended, atTrip, atEnd } = yield* runUntilTripped(sandbox, dir, file)
      expect(ended.code, ended.stderr).toBe(3)
      expect(atEnd - atTrip, ended.stderr).toBeLessThanOrEqual(3)
      expectPausedByBreaker(dir, "failing", ended.stderr)
      const statuses = readLedger(join(dir, "failing.ledger.csv")).map((r) => r.status)
      expect(statuses.filter((s) => s === "failed")).toHaveLength(atEnd)
      expect(statuses.filter((s) => s === "validated")).toHaveLength(40 - atEnd)
      expect(40 - atEnd).toBeGreaterThan(20)
    }), 180_000)

  it.scopedLive("a mixed file: the failing operator held after 5, the other operator paid whole", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-breaker-")
      const file = writeCsv(dir, "mixed.csv", Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? failing(i) : paying(i))))
      const { ended, atTrip, atEnd } = yield* runUntilTripped(sandbox, dir, file)
      expect(ended.code, ended.stderr).toBe(3)
      expect(atEnd - atTrip, ended.stderr).toBeLessThanOrEqual(3)
      expectPausedByBreaker(dir, "mixed", ended.stderr)
      const ledger = readLedger(join(dir, "mixed.ledger.csv"))
      const of = (operator: string) => ledger.filter((r) => r.operator === operator).map((r) => r.status)
      expect(of("carrier2_cm")).toEqual(Array(20).fill("completed"))
      expect(of("carrier1_cm").filter((s) => s === "validated").length).toBeGreaterThan(5)
      expect([...countByToken(yield* admin(sandbox).payouts).values()].every((n) => n === 1)).toBe(true)
    }), 180_000)

  it("the probe window: at most N unsettled per operator until one completes, or until it waited too long", () => {
    const step = threaded(ProbeWindow.make(2, 1000))
    const w = {
      admit: (idx: number, operator: string, now: number) => step((s) => ProbeWindow.admit(s, idx, operator, now)),
      cancel: (idx: number, now: number) => step((s) => [undefined, ProbeWindow.cancel(s, idx, now)] as const),
      settled: (idx: number, operator: string, completed: boolean, now: number) => step((s) => ProbeWindow.settled(s, idx, operator, completed, now)),
      full: () => step((s) => [ProbeWindow.full(s), s] as const),
      expire: (now: number) => step((s) => ProbeWindow.expire(s, now)),
      isOpen: (operator: string) => step((s) => [ProbeWindow.isOpen(s, operator), s] as const)
    }
    expect([1, 2, 3].map((idx) => w.admit(idx, "op", 0))).toEqual([true, true, false])
    expect(w.full()).toEqual(["op"])
    // A try again of a row already counted goes; another operator is counted apart.
    expect(w.admit(2, "op", 0)).toBe(true)
    expect(w.admit(10, "other", 0)).toBe(true)
    // A failure keeps its place (no success yet: the breaker decides); a row that never left frees it.
    w.settled(1, "op", false, 10)
    expect(w.admit(3, "op", 10)).toBe(false)
    w.cancel(2, 20)
    expect(w.full()).toEqual([])
    expect(w.admit(4, "op", 20)).toBe(true)
    // Full since 20, a failure at 30, then no final status: open 1000 ms after it, not before.
    w.settled(4, "op", false, 30)
    expect(w.expire(1029)).toEqual([])
    expect(w.expire(1030)).toEqual(["op"])
    expect(w.admit(5, "op", 1020) && w.admit(6, "op", 1020) && w.isOpen("op")).toBe(true)
    // A completion opens the operator's window for good, and says so once (the runner claims at once).
    expect(w.settled(10, "other", true, 30)).toBe(true)
    expect(w.isOpen("other") && w.full().length === 0).toBe(true)
    expect(w.settled(11, "other", true, 40)).toBe(false)
    // 0: the breaker and its window are off.
    expect(ProbeWindow.admit(ProbeWindow.make(0, 1000), 1, "op", 0)[0]).toBe(true)
  })

  /** Runs FILE to its end at the default (unlimited) rate. */
  const runWhole = (sandbox: Sandbox, dir: string, file: string, extra: ReadonlyArray<string> = []) =>
    Effect.gen(function* () {
      const run = yield* Effect.acquireRelease(
        Effect.sync(() => start(sandbox, join(dir, "state.db"), ["run", file, "--yes", "--breaker-failures", "5", ...FAST, ...extra])),
        (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
      )
      return yield* run.exit
    })

  it.scopedLive("unlimited rate, an operator whose payouts all fail: exactly 5 sent to it, the rest held, paused (exit 3)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-breaker-")
      const file = writeCsv(dir, "allfail.csv", Array.from({ length: 25 }, (_, i) => failing(i)))
      const ended = yield* runWhole(sandbox, dir, file)
      expect(ended.code, ended.stderr).toBe(3)
      expect(yield* sentTo(sandbox, "carrier1_cm")).toBe(5)
      expectPausedByBreaker(dir, "allfail", ended.stderr)
      expect(ended.stderr).toContain("Breaker tripped for carrier1_cm")
      // The pause is told once, by the closing line.
      expect(ended.stderr.match(/^Paused/gm), ended.stderr).toEqual(["Paused"])
      expect(ended.stderr).toMatch(/^Paused \(exit 3\): breaker tripped for carrier1_cm/m)
      const statuses = readLedger(join(dir, "allfail.ledger.csv")).map((r) => r.status)
      expect(statuses.filter((s) => s === "failed")).toHaveLength(5)
      expect(statuses.filter((s) => s === "validated")).toHaveLength(20)
    }), 180_000)

  it.scopedLive("unlimited rate, a mixed file: the failing operator held after 5 sent, the succeeding one paid whole", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-breaker-")
      const file = writeCsv(dir, "mixedfast.csv", Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? failing(i) : paying(i))))
      const ended = yield* runWhole(sandbox, dir, file)
      expect(ended.code, ended.stderr).toBe(3)
      expect(yield* sentTo(sandbox, "carrier1_cm")).toBe(5)
      expectPausedByBreaker(dir, "mixedfast", ended.stderr)
      const ledger = readLedger(join(dir, "mixedfast.ledger.csv"))
      const of = (operator: string) => ledger.filter((r) => r.operator === operator).map((r) => r.status)
      expect(of("carrier2_cm")).toEqual(Array(20).fill("completed"))
      expect(of("carrier1_cm").filter((s) => s === "validated")).toHaveLength(5)
      expect([...countByToken(yield* admin(sandbox).payouts).values()].every((n) => n === 1)).toBe(true)
    }), 180_000)

  it.scopedLive("an operator settling slowly: after --breaker-probe with no final status, its other rows are sent", () =>
    Effect.gen(function* () {
      // The delayed number settles after 30 sandbox minutes: 30 s here, well after the 3 s probe. (At
      // the kit's 600x it was 3 s, the probe's own time: on a loaded machine the payouts settled first,
      // the window opened without the probe's notice, and the test waited for it in vain.)
      const sandbox = yield* startSandbox({ timeScale: 60 })
      const dir = tempDir("payouts-breaker-")
      const file = writeCsv(dir, "slow.csv", Array.from({ length: 12 }, (_, i) => slow(i)))
      const run = yield* Effect.acquireRelease(
        Effect.sync(() => start(sandbox, join(dir, "state.db"), ["run", file, "--yes", "--breaker-probe", "3s", ...FAST])),
        (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
      )
      yield* until("the first 5 to be sent", Effect.map(sentTo(sandbox, "carrier1_cm"), (n) => n >= 5), 60_000)
      expect(yield* sentTo(sandbox, "carrier1_cm")).toBe(5)
      expect(run.output()).not.toContain("Breaker probe:")
      yield* until("the probe to give up waiting", Effect.sync(() => run.output().includes("Breaker probe: no final status from carrier1_cm")), 60_000)
      yield* until("every row to be sent", Effect.map(sentTo(sandbox, "carrier1_cm"), (n) => n === 12), 60_000)
    }), 180_000)
})
