/**
 * The run's end as a notification, in process over the real sandbox, SQLite and a real receiver that
 * verifies each signature: a batch paused by the stop rule sends `batch.paused`, one ending under alarm
 * `batch.alarm` (and one as its rows became alarms), a dry run nothing. The secret comes through Config, as a profile would give it.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { join } from "node:path"
import { startNotifier } from "../../src/notify/Notifier.ts"
import type { RunResult } from "../../src/run/RunRequest.ts"
import { ordinaryPhone, run, type RunSetup, writeCsv } from "../run/support.ts"
import { type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { newSecret, receiver, verifies } from "./receiver.ts"

const FAILS = "+237670000002"

/** One run with `--notify` to a fresh receiver; returns when the notifier has flushed. */
const notifiedRun = (sandbox: Sandbox, setup: RunSetup) =>
  Effect.gen(function* () {
    const hooks = yield* receiver()
    const secret = newSecret()
    const warnings: Array<string> = []
    const result: RunResult = yield* Effect.scoped(
      Effect.flatMap(startNotifier(hooks.url, (text) => Effect.sync(() => void warnings.push(text))), (notifier) => run(sandbox, setup).pipe(Effect.provide(notifier)))
    ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["PAYOUTS_NOTIFY_SECRET", secret]]))))
    for (const d of hooks.deliveries) expect(verifies(secret, d, d.at)).toBe(true)
    expect(warnings).toEqual([])
    return { result, bodies: hooks.deliveries.map((d) => JSON.parse(d.body)) }
  })

describe("a run's end, notified", () => {
  it.scopedLive(
    "a batch paused by the stop rule sends batch.paused with why; a dry run of it sends nothing",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ faults: "payout.latency=25ms-35ms" })
        const dir = tempDir("payouts-notify-events-")
        const rows = Array.from({ length: 30 }, (_, i) => ({ id: `R${i}`, amount: String(1000 + i), phone: i % 3 === 2 ? ordinaryPhone(i) : FAILS }))
        const file = writeCsv(dir, "risky.csv", rows)
        const setup = { file, state: join(dir, "state.db"), settings: { concurrency: 1, safeguards: { stopMinSettled: 6, stopFailureRatio: 0.5, breakerFailures: 0 } } }

        const dry = yield* notifiedRun(sandbox, { ...setup, request: { dryRun: true } })
        expect(dry.result.exitCode).toBe(0)
        expect(dry.bodies).toEqual([])

        const paused = yield* notifiedRun(sandbox, setup)
        expect(paused.result.exitCode).toBe(3)
        expect(paused.bodies).toHaveLength(1)
        expect(paused.bodies[0]).toMatchObject({ type: "batch.paused", data: { file: "risky.csv", exit_code: 3 } })
        expect(paused.bodies[0].data.outcome).toMatch(/^paused: stop rule: \d+ of \d+ settled rows failed/)
        expect(paused.bodies[0].data.counts.validated).toBeGreaterThan(0)
      }),
    120_000
  )

  it.scopedLive(
    "a batch ending under alarm (a listing that never catches up, past the deadline) sends batch.alarm with the rows under alarm",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults: "payout.error_before=0.2,transactions.list_lag=1h,seed=26" })
        const dir = tempDir("payouts-notify-events-")
        const file = writeCsv(dir, "stuck.csv", Array.from({ length: 20 }, (_, i) => ({ id: `S-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) })))
        const { bodies, result } = yield* notifiedRun(sandbox, {
          file,
          state: join(dir, "state.db"),
          requestTimeout: "700 millis",
          settings: { concurrency: 6, reconcileGraceMs: 1_000, reconcileDeadlineMs: 4_000, leaseTtlMs: 3_000 }
        })
        expect(result.exitCode).toBe(5)
        // The end's batch.alarm, last; before it, one batch.alarm per reconcile round that raised alarms
        // while the run went on, listing those rows' lines: together, every row under alarm once.
        const end = bodies.at(-1)
        expect(end).toMatchObject({ type: "batch.alarm", data: { file: "stuck.csv", exit_code: 5 } })
        expect(end.data.alarms).toBeGreaterThan(0)
        const during = bodies.slice(0, -1)
        expect(during.length).toBeGreaterThan(0)
        for (const body of during) expect(body).toMatchObject({ type: "batch.alarm", data: { file: "stuck.csv", outcome: "running" } })
        const lines = during.flatMap((body) => body.data.raised.map((r: { line: number }) => r.line))
        expect(new Set(lines).size).toBe(lines.length)
        expect(lines.length).toBe(end.data.alarms)
      }),
    120_000
  )
})
