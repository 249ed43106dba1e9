import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { RunResult } from "../../src/run/RunRequest.ts"
import { approve, reject } from "../../src/jobs/Approval.ts"
import { scheduleErrorText } from "../../src/cli/WatchText.ts"
import { makeCronGate, shownIn } from "../../src/jobs/CronGate.ts"
import { jobFolder } from "../../src/jobs/JobFolder.ts"
import { makeWatcher } from "../../src/jobs/Watcher.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { layersFor, stateIn, watcherFor } from "./support.ts"
import { Outcome } from "../../src/run/Outcome.ts"
import { AccountId } from "../../src/domain/Ids.ts"

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : [])
const jobsRoot = () => {
  const root = join(tempDir("payouts-jobs-"), "jobs")
  mkdirSync(root, { recursive: true })
  return root
}
const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) }))

describe("--schedule", () => {
  it.scoped("holds waiting files until the next scheduled time (TestClock)", () =>
    Effect.gen(function* () {
      const root = jobsRoot()
      const ran: Array<string> = []
      yield* TestClock.setTime(Date.UTC(2025, 0, 6, 0, 30))
      const schedule = yield* makeCronGate("0 2 * * *", "UTC")
      const fake = (file: string): Effect.Effect<RunResult> =>
        Effect.sync(() => {
          ran.push(file)
          return { outcome: Outcome.Finished({ allCompleted: true }), exitCode: 0, summary: { outcome: "finished" } }
        })
      const watcher = yield* makeWatcher(
        { accountId: AccountId.make("acct"), folder: jobFolder(root), requireApproval: false, feePercent: 2, settleMs: 0, retryEvery: Duration.minutes(1), once: false, schedule },
        fake
      )
      writeCsv(root, "night.csv", sellers(2, "N"))
      yield* watcher.scan
      yield* watcher.idle
      expect(ran).toEqual([])
      expect(ls(root)).toContain("night.csv")
      expect((yield* schedule.nextAt).toISOString()).toBe("2025-01-06T02:00:00.000Z")

      yield* TestClock.setTime(Date.UTC(2025, 0, 6, 1, 59, 59))
      yield* watcher.scan
      expect(ran).toEqual([])

      yield* TestClock.setTime(Date.UTC(2025, 0, 6, 2, 0, 0))
      yield* watcher.scan
      yield* watcher.idle
      expect(ran).toEqual([join(root, "processing", "night.csv")])
      expect(ls(join(root, "done"))).toEqual(["night.csv"])

      // A file dropped after the run waits for the next day's time.
      writeCsv(root, "late.csv", sellers(1, "L"))
      yield* TestClock.setTime(Date.UTC(2025, 0, 6, 9, 0))
      yield* watcher.scan
      yield* watcher.idle
      expect(ran.length).toBe(1)
      expect((yield* schedule.nextAt).toISOString()).toBe("2025-01-07T02:00:00.000Z")
      yield* TestClock.setTime(Date.UTC(2025, 0, 7, 2, 0, 30))
      yield* watcher.scan
      yield* watcher.idle
      expect(ran.length).toBe(2)
      expect(ls(join(root, "done"))).toEqual(["late.csv", "night.csv"])
    }).pipe(Effect.provide(Layer.merge(SqliteStateStore.layer({ filename: join(tempDir(), "s.db") }), NodeContext.layer)))
  )

  it.effect("refuses an invalid expression", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(makeCronGate("every night"))
      expect(scheduleErrorText(error)).toMatch(/--schedule "every night"/)
      const zone = yield* Effect.flip(makeCronGate("0 6 * * *", "Mars/Base"))
      expect(scheduleErrorText(zone)).toBe('--timezone "Mars/Base" is not a time zone: give an IANA name such as Africa/Douala or UTC')
    })
  )

  it.effect("reads the expression in its zone: 06:00 in Douala is 05:00 UTC, shown with its zone and offset", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 21, 0))
      const gate = yield* makeCronGate("0 6 * * *", "Africa/Douala")
      const next = yield* gate.nextAt
      expect(next.toISOString()).toBe("2026-11-28T05:00:00.000Z")
      expect(shownIn(next, gate.timeZone)).toBe("2026-11-28 06:00 (Africa/Douala, UTC+01:00)")
      expect(shownIn(next, "Asia/Kolkata")).toBe("2026-11-28 10:30 (Asia/Kolkata, UTC+05:30)")
    })
  )
})

describe("--require-approval", () => {
  it.scopedLive("a dropped batch waits with its totals and fee estimates; approve pays it (who and when recorded), reject drops another", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = jobsRoot()
      const folder = jobFolder(root)
      writeCsv(root, "payroll.csv", [...sellers(3, "P"), { id: "P-X", amount: "2500", currency: "XOF", operator: "carrier1_ci", phone: "+2250701020304" }])
      writeCsv(root, "bonus.csv", sellers(2, "B"))
      yield* Effect.gen(function* () {
        const watcher = yield* watcherFor(sandbox, { root, requireApproval: true })
        yield* watcher.scan
        yield* watcher.idle
        expect(ls(folder.awaiting)).toEqual(["bonus.approval.json", "bonus.csv", "payroll.approval.json", "payroll.csv"])
        expect(yield* admin(sandbox).payouts).toEqual([])
        const waiting = JSON.parse(readFileSync(join(folder.awaiting, "payroll.approval.json"), "utf8"))
        expect(waiting.status).toBe("awaiting")
        expect(waiting.rows).toBe(4)
        expect(waiting.currencies).toEqual({
          XAF: { rows: 3, amount: "3003", fee_estimate: "62", total: "3065" },
          XOF: { rows: 1, amount: "2500", fee_estimate: "50", total: "2550" }
        })
        const bonusId = JSON.parse(readFileSync(join(folder.awaiting, "bonus.approval.json"), "utf8")).batch_id

        yield* approve(folder, waiting.batch_id.slice(0, 8), "alice")
        yield* reject(folder, bonusId, "bob", "duplicate of last week")
        yield* watcher.scan
        yield* watcher.idle
      }).pipe(Effect.provide(layersFor(sandbox, stateIn(root))))
      expect(ls(folder.done)).toEqual(["payroll.approval.json", "payroll.csv", "payroll.ledger.csv", "payroll.report.html", "payroll.summary.json"])
      const summary = JSON.parse(readFileSync(join(folder.done, "payroll.summary.json"), "utf8"))
      expect(summary.approval.by).toBe("alice")
      expect(summary.approval.at).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(summary.counts).toEqual({ completed: 4 })
      expect(ls(folder.rejected)).toEqual(["bonus.approval.json", "bonus.csv"])
      const rejected = JSON.parse(readFileSync(join(folder.rejected, "bonus.approval.json"), "utf8"))
      expect([rejected.status, rejected.rejected_by, rejected.reason]).toEqual(["rejected", "bob", "duplicate of last week"])
      expect(countByToken(yield* admin(sandbox).payouts).size).toBe(4)
    })
  )
})
