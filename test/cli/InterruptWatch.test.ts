/**
 * A run inside `watch` stopped by SIGTERM (issue 31, item 1): the rows it claimed and never sent are
 * released and said, so the next start finishes the batch at once (default 30m reconcile grace: a
 * row left in doubt would make it wait), every row paid exactly once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { payouts, payoutsDone, serviceOf, until } from "../jobs/cli.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const ROWS = 16
const WATCH = ["--rate", "2", "--concurrency", "8", "--poll-interval", "100ms", "--poll-max", "300ms", "--settle", "0s", "--scan-every", "200ms"]

describe("stopping watch (the binary)", () => {
  it.scopedLive("SIGTERM while a batch waits for rate slots: its unsent rows released, the next start pays them once", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const root = join(tempDir("payouts-stop-watch-"), "jobs")
      mkdirSync(root, { recursive: true })
      const sent = Effect.map(admin(sandbox).payouts, (p) => p.length)
      writeCsv(root, "week.csv", Array.from({ length: ROWS }, (_, i) => ({ id: `W${i}`, amount: String(1000 + i), phone: ordinaryPhone(i) })))
      const daemon = yield* payouts(serviceOf(sandbox), ["watch", root, ...WATCH])
      yield* until("two payouts sent", Effect.map(sent, (n) => n >= 2), 90_000)
      daemon.child.kill("SIGTERM")
      expect(yield* daemon.exit).toBe(0)
      const said = /Released (\d+) row/.exec(daemon.stdout() + daemon.stderr())
      expect(Number(said?.[1] ?? "-1"), daemon.stderr()).toBeGreaterThan(0)
      expect(yield* sent).toBeLessThan(ROWS)

      const again = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...WATCH])
      expect(again.code, again.output).toBe(0)
      expect(existsSync(join(root, "done", "week.summary.json")), again.output).toBe(true)
      expect(again.output).not.toMatch(/unknown [1-9]|grace|in doubt/i)
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect(counts.size).toBe(ROWS)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    }), 180_000)
})
