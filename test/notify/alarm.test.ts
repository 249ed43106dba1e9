/**
 * `--notify` and a row that becomes an alarm while the run goes on: `batch.alarm` is POSTed at once,
 * with the row's line and no exit code (`outcome: running`), then again at the run's end (exit 5).
 * Through the real binary against a sandbox whose first payout POST fails (500) before doing anything
 * (seeded): that row's outcome is unknown, nothing can prove it either way (no witness payout is
 * listed), and past a short --reconcile-deadline it becomes an alarm, while the other row takes 8 s
 * to complete: the alarm's notification arrives while the run still goes on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST } from "../cli/binarySupport.ts"
import { type Delivery, newSecret, payouts, receiver, verifies } from "./receiver.ts"

/** The run ended on its alarm (exit 5, line 2) and told it twice: while running, then at its end; both signed. */
const alarmedThenEnded = (ended: { code: number; stderr: string }, deliveries: ReadonlyArray<Delivery>, secret: string) => {
  expect(ended.code, ended.stderr).toBe(5)
  expect(ended.stderr).toContain("ALARM line 2")
  const bodies = deliveries.map((d) => JSON.parse(d.body))
  expect(bodies.map((b) => [b.type, b.data.outcome])).toEqual([
    ["batch.alarm", "running"],
    ["batch.alarm", expect.not.stringMatching(/^running$/)]
  ])
  for (const d of deliveries) expect(verifies(secret, d, d.at)).toBe(true)
  return bodies
}

describe("payouts run --notify: a row's alarm (real CLI, real receiver)", () => {
  it.scopedLive(
    "batch.alarm goes out when the row becomes an alarm, with its line, before the end's batch.alarm",
    () =>
      Effect.gen(function* () {
        // Seed 1 with one request at a time: the first POST draws the fault, the second does not.
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 8, faults: "payout.error_before=0.5,seed=1" })
        const hooks = yield* receiver()
        const secret = newSecret()
        const dir = tempDir("payouts-notify-alarm-")
        const file = writeCsv(dir, "doubt.csv", [
          { id: "D-1", amount: "1000", phone: ordinaryPhone(3) },
          { id: "D-2", amount: "2000", phone: ordinaryPhone(4) }
        ])
        const ended = yield* payouts(["run", file, ...FAST, "--concurrency", "1", "--resend-unknown", "never", "--reconcile-deadline", "3s", "--notify", hooks.url], {
          PAYOUTS_BASE_URL: sandbox.baseUrl,
          PAYOUTS_API_KEY: sandbox.key,
          PAYOUTS_API_SECRET: sandbox.secret,
          PAYOUTS_STATE: join(dir, "state.db"),
          PAYOUTS_NOTIFY_SECRET: secret
        })
        const bodies = alarmedThenEnded(ended, hooks.deliveries, secret)
        const [during, end] = bodies
        expect(during.data).toMatchObject({ file: "doubt.csv", alarms: 1, raised: [{ line: 2 }] })
        expect(during.data.raised[0].reason).toContain("--reconcile-deadline")
        expect(during.data.exit_code).toBeUndefined()
        expect(end.data).toMatchObject({ batch_id: during.data.batch_id, exit_code: 5, alarms: 1 })
        expect(end.data.raised).toBeUndefined()
        expect(end.data.counts).toEqual({ completed: 1, unknown: 1 })
        // Told while the run went on: seconds before the other row completed and the run ended.
        expect(ended.at - hooks.deliveries[0].at).toBeGreaterThan(1_500)
        expect(hooks.deliveries[0].body).not.toContain("677")
      }),
    120_000
  )
  it.scopedLive(
    "a row the pre-scan puts under alarm is told before the rest of the batch is sent",
    () =>
      Effect.gen(function* () {
        // Row D-1 was paid 1,000 from another state store; the file now says 1,500 for the same id:
        // the pre-scan finds its token listed with another amount, an alarm, while D-2 takes 8 s.
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 8 })
        const hooks = yield* receiver()
        const secret = newSecret()
        const dir = tempDir("payouts-notify-prescan-")
        const env = { PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_NOTIFY_SECRET: secret }
        const first = writeCsv(dir, "first.csv", [{ id: "D-1", amount: "1000", phone: ordinaryPhone(3) }])
        const paid = yield* payouts(["run", first, ...FAST], { ...env, PAYOUTS_STATE: join(dir, "a.db") })
        expect(paid.code, paid.stderr).toBe(0)
        const second = writeCsv(dir, "second.csv", [
          { id: "D-1", amount: "1500", phone: ordinaryPhone(3) },
          { id: "D-2", amount: "2000", phone: ordinaryPhone(4) }
        ])
        const ended = yield* payouts(["run", second, ...FAST, "--notify", hooks.url], { ...env, PAYOUTS_STATE: join(dir, "b.db") })
        const bodies = alarmedThenEnded(ended, hooks.deliveries, secret)
        expect(bodies[0].data).toMatchObject({ file: "second.csv", alarms: 1, raised: [{ line: 2 }] })
        expect(bodies[0].data.raised[0].reason).toContain("another amount or currency")
        // The alarmed row was never sent: it stays validated, for a person.
        expect(bodies[1].data.counts).toEqual({ validated: 1, completed: 1 })
        // Told while D-2 was still on its way: seconds before the run ended.
        expect(ended.at - hooks.deliveries[0].at).toBeGreaterThan(1_500)
      }),
    120_000
  )
})
