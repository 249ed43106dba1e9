import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { ordinaryPhone, readLedger, run, writeCsv } from "./support.ts"
import { accountOf, admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const TEST = { success: "+237670000001", failure: "+237670000002", delayed: "+237670000003", cancelled: "+237670000004" }

const clean = (n: number, prefix = "S") =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) }))

const expectPaidOnce = (payouts: ReadonlyArray<{ description: string }>, expected: number) => {
  const counts = countByToken(payouts)
  expect(counts.size).toBe(expected)
  expect([...counts.values()].every((n) => n === 1)).toBe(true)
}

describe("payouts run, end to end against the sandbox", () => {
  it.scopedLive("pays a clean batch exactly once and writes a ledger of completed rows (exit 0)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "clean.csv", clean(12))
      const result = yield* run(sandbox, { file, state: join(dir, "state.db") })
      expect(result.exitCode).toBe(0)
      const ledger = readLedger(join(dir, "clean.ledger.csv"))
      expect(ledger.map((r) => r.status)).toEqual(Array(12).fill("completed"))
      expect(ledger.every((r) => r.reference.startsWith("TXN") || r.reference.length > 0)).toBe(true)
      expectPaidOnce(yield* admin(sandbox).payouts, 12)
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
      const summary = JSON.parse(readFileSync(join(dir, "clean.summary.json"), "utf8"))
      expect(summary.counts).toEqual({ completed: 12 })
      expect(summary.exit_code).toBe(0)
    })
  )

  it.scopedLive("follows failures, cancellations and a delayed success to their final status (exit 1)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "mixed.csv", [
        { id: "A", amount: "5000", phone: TEST.success },
        { id: "B", amount: "5000", phone: TEST.failure },
        { id: "C", amount: "5000", phone: TEST.cancelled },
        { id: "D", amount: "5000", phone: TEST.delayed },
        { id: "E", amount: "7000", phone: ordinaryPhone(1) }
      ])
      const result = yield* run(sandbox, { file, state: join(dir, "state.db") })
      expect(result.exitCode).toBe(1)
      const byId = Object.fromEntries(readLedger(join(dir, "mixed.ledger.csv")).map((r) => [r.id, r.status]))
      expect(byId).toEqual({ A: "completed", B: "failed", C: "cancelled", D: "completed", E: "completed" })
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
    })
  )

  it.scopedLive("refuses a file with an invalid row whole: errors file, nothing paid (exit 2)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "bad.csv", [...clean(3), { id: "X", amount: "\"1,000\"", phone: ordinaryPhone(9) }])
      const result = yield* run(sandbox, { file, state: join(dir, "state.db") })
      expect(result.exitCode).toBe(2)
      expect(readFileSync(join(dir, "bad.errors.csv"), "utf8")).toMatch(/^line,column,value,reason\n5,amount,/)
      expect(yield* admin(sandbox).payouts).toEqual([])
      // Refused again, not resumed: the store kept nothing of it.
      expect((yield* run(sandbox, { file, state: join(dir, "state.db") })).exitCode).toBe(2)
      expect(yield* admin(sandbox).payouts).toEqual([])
    })
  )

  it.scopedLive("--skip-invalid pays the valid rows and keeps the invalid ones as rejected (exit 1)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "skip.csv", [...clean(2), { id: "X", amount: "-5", phone: ordinaryPhone(9) }])
      const result = yield* run(sandbox, { file, state: join(dir, "state.db"), request: { skipInvalid: true } })
      expect(result.exitCode).toBe(1)
      expect(readLedger(join(dir, "skip.ledger.csv")).map((r) => r.status)).toEqual(["completed", "completed", "rejected"])
      expectPaidOnce(yield* admin(sandbox).payouts, 2)
    })
  )

  it.scopedLive("insufficient balance: abort pays nothing (exit 2); partial pays what fits in file order (exit 1)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ fund: { XAF: 25_000 } })
      const dir = tempDir()
      const sellers = [10_000, 10_000, 10_000].map((amount, i) => ({ id: `P${i}`, amount: String(amount), phone: ordinaryPhone(i) }))
      const file = writeCsv(dir, "big.csv", sellers)
      expect((yield* run(sandbox, { file, state: join(dir, "a.db") })).exitCode).toBe(2)
      expect(yield* admin(sandbox).payouts).toEqual([])
      const partial = yield* run(sandbox, { file, state: join(dir, "b.db"), settings: { onInsufficient: "partial" } })
      expect(partial.exitCode).toBe(1)
      expect(readLedger(join(dir, "big.ledger.csv")).map((r) => r.status)).toEqual(["completed", "completed", "skipped"])
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
    })
  )

  it.scopedLive("bad credentials stop the run before anything is paid (exit 2)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "auth.csv", clean(2))
      const result = yield* run(sandbox, { file, state: join(dir, "state.db"), secret: "wrong-secret" })
      expect(result.exitCode).toBe(2)
      expect(yield* admin(sandbox).payouts).toEqual([])
      expect(JSON.stringify(result.summary)).not.toContain("wrong-secret")
    })
  )

  it.scopedLive("an interrupted run resumes from the store and never pays a row twice", () =>
    Effect.gen(function* () {
      // Real time: under load a POST may outlast the request timeout and leave its row in doubt; the
      // sandbox's clock then agrees with ours (DESIGN 7 rule 7) and the row is settled or alarms in time,
      // instead of waiting on a clock 600 times ours until the test's timeout.
      const sandbox = yield* startSandbox({ faults: "payout.latency=30ms-60ms", timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir()
      const file = writeCsv(dir, "resume.csv", clean(40))
      const state = join(dir, "state.db")
      const first = yield* Effect.fork(run(sandbox, { file, state, settings: { concurrency: 4 } }))
      // Interrupt once payouts are going out (the start syncs the listing first: no fixed sleep).
      while ((yield* admin(sandbox).payouts).length < 3) yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(first)
      const sentBefore = (yield* admin(sandbox).payouts).length
      expect(sentBefore).toBeGreaterThan(0)
      expect(sentBefore).toBeLessThan(40)
      expect(existsSync(join(dir, "resume.ledger.csv"))).toBe(true)
      const second = yield* run(sandbox, { file, state, settings: { reconcileDeadlineMs: 10_000 } })
      const alarms = ((second.summary as Record<string, unknown>).alarms ?? []) as ReadonlyArray<unknown>
      expect(second.exitCode).toBe(alarms.length === 0 ? 0 : 5)
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      expect(counts.size + alarms.length).toBe(40)
      // A third run of the same file pays nothing more.
      yield* run(sandbox, { file, state, settings: { reconcileDeadlineMs: 10_000 } })
      expect((yield* admin(sandbox).payouts).length).toBe(counts.size)
    })
  )

  it.scopedLive("Ctrl-C: rows waiting for their turn at the rate gate are put back, not sent after the interrupt", () =>
    Effect.gen(function* () {
      // Real time: a row left in doubt by the interrupt can be reasoned about (or alarms) within the test.
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir()
      const file = writeCsv(dir, "ctrlc.csv", clean(30))
      const state = join(dir, "state.db")
      // 8 rows claimed at once, sent 4 per second: most of them wait at the gate when the run is interrupted.
      const first = yield* Effect.fork(run(sandbox, { file, state, rate: 4, settings: { concurrency: 8 } }))
      while ((yield* admin(sandbox).payouts).length < 2) yield* Effect.sleep("20 millis")
      const atInterrupt = (yield* admin(sandbox).payouts).length
      yield* Fiber.interrupt(first)
      // Requests already on their way may finish (one at 4/s); the rows behind them are not sent.
      yield* Effect.sleep("2 seconds")
      expect((yield* admin(sandbox).payouts).length - atInterrupt).toBeLessThanOrEqual(2)
      // The next run pays the rest, each row at most once (a row in doubt may wait for a person).
      const second = yield* run(sandbox, { file, state, settings: { reconcileDeadlineMs: 10_000 } })
      expect([0, 5]).toContain(second.exitCode)
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    })
  , 120_000)

  it.scopedLive("exactly once under 5xx-after-commit, resets, held responses and 429s", () =>
    Effect.gen(function* () {
      // Real time: the sandbox's Date header then agrees with our clock, so a proven absence may be resent.
      const sandbox = yield* startSandbox({
        timeScale: 1,
        payoutDelaySeconds: 1,
        faults: "payout.error_after=0.15,payout.reset_after=0.1,payout.hold_after=0.05,payout.error_before=0.1,rate=200,seed=11"
      })
      const dir = tempDir()
      const file = writeCsv(dir, "faults.csv", clean(40))
      const result = yield* run(sandbox, { file, state: join(dir, "state.db"), requestTimeout: "700 millis", settings: { reconcileDeadlineMs: 15_000 } })
      const payouts = yield* admin(sandbox).payouts
      const counts = countByToken(payouts)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      // A resend that meets a fault again, or has no later payout to witness the listing, waits for a person.
      const alarms = ((result.summary as Record<string, unknown>).alarms ?? []) as Array<{ line: number; reason: string }>
      expect(counts.size + alarms.length).toBe(40)
      expect(result.exitCode).toBe(alarms.length === 0 ? 0 : 5)
      const ledger = readLedger(join(dir, "faults.ledger.csv"))
      const sandboxStatus = new Map(payouts.map((p) => [p.reference, p.status]))
      for (const row of ledger) if (row.reference !== "") expect(sandboxStatus.get(row.reference)).toBe(row.status)
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
    })
  , 120_000)

  it.scopedLive("two runners on the same batch at once: every row is sent once", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ faults: "payout.latency=5ms-20ms" })
      const dir = tempDir()
      const file = writeCsv(dir, "twice.csv", clean(30))
      const state = join(dir, "state.db")
      const [a, b] = yield* Effect.all([run(sandbox, { file, state }), run(sandbox, { file, state })], { concurrency: 2 })
      expect([a.exitCode, b.exitCode].sort()).toEqual([0, 3])
      expectPaidOnce(yield* admin(sandbox).payouts, 30)
    })
  )

  it.scopedLive("a runner whose lease is taken over stops at once: its later answers are refused, nothing is paid twice", () =>
    Effect.gen(function* () {
      // Real time, as in the interrupted-run test: a POST cut by the takeover (or outlasting its timeout
      // under load) leaves a row in doubt that the next run settles or alarms within the test.
      const sandbox = yield* startSandbox({ faults: "payout.latency=40ms-80ms", timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir()
      const file = writeCsv(dir, "stolen.csv", clean(40))
      const state = join(dir, "state.db")
      const first = yield* Effect.fork(run(sandbox, { file, state, settings: { concurrency: 2 } }))
      while ((yield* admin(sandbox).payouts).length < 3) yield* Effect.sleep("20 millis")
      // Another process takes the batch over (as after a pause past the lease): a new lease, a new fence.
      const thief = yield* Effect.gen(function* () {
        const store = yield* StateStore
        const [batch] = (yield* store.account(accountOf(sandbox)).listBatches()).filter((b) => b.leaseOwner !== null)
        yield* store.batch(accountOf(sandbox), batch.batchId).releaseLease(batch.leaseOwner ?? "")
        const fence = yield* store.batch(accountOf(sandbox), batch.batchId).acquireLease("thief", "1 minute")
        return { batchId: batch.batchId, fence: Option.getOrThrow(fence) }
      }).pipe(Effect.provide(withHandles(SqliteStateStore.layer({ filename: state }))))
      expect(thief.fence.number).toBeGreaterThan(1)
      // The first runner finds out (a refused write or renewal) and stops: exit 3, not a hang.
      const stopped = yield* Fiber.join(first)
      expect(stopped.exitCode).toBe(3)
      expect(String(stopped.summary.outcome)).toContain("lease")
      const sentByFirst = (yield* admin(sandbox).payouts).length
      expect(sentByFirst).toBeLessThan(40)
      yield* Effect.gen(function* () {
        yield* (yield* StateStore).batch(accountOf(sandbox), thief.batchId).releaseLease("thief")
      }).pipe(Effect.provide(withHandles(SqliteStateStore.layer({ filename: state }))))
      const second = yield* run(sandbox, { file, state, settings: { reconcileDeadlineMs: 10_000 } })
      // Never twice; every row paid, or (a row in doubt with no proof either way) waiting for a person.
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      const alarms = ((second.summary as Record<string, unknown>).alarms ?? []) as ReadonlyArray<unknown>
      expect(counts.size + alarms.length).toBe(40)
      expect(second.exitCode).toBe(alarms.length === 0 ? 0 : 5)
    })
  , 120_000)

  it.scopedLive("a rehearsal on one account does not make another account's run look done", () =>
    Effect.gen(function* () {
      const rehearsal = yield* startSandbox()
      const real = yield* startSandbox({ key: "other-key", secret: "other-secret" })
      const dir = tempDir()
      const file = writeCsv(dir, "rehearse.csv", clean(3))
      const state = join(dir, "state.db")
      expect((yield* run(rehearsal, { file, state })).exitCode).toBe(0)
      expect((yield* run(real, { file, state })).exitCode).toBe(0)
      expectPaidOnce(yield* admin(real).payouts, 3)
    })
  )

  it.scopedLive("with --listen, webhooks trigger the status lookups (polling alone would wait minutes)", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "hooks.csv", clean(6))
      const result = yield* run(sandbox, {
        file,
        state: join(dir, "state.db"),
        settings: { pollIntervalMs: 300_000, pollMaxMs: 300_000, callbackUrl: undefined },
        request: { listen: { host: "127.0.0.1", port: 0 } }
      })
      expect(result.exitCode).toBe(0)
      expectPaidOnce(yield* admin(sandbox).payouts, 6)
    })
  )
})
