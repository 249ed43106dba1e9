/**
 * `payouts run FILE --sandbox --notify URL` through the real binary, against a real local receiver that
 * verifies each Standard Webhooks signature: `batch.done` received and verified; a 500 retried; a
 * receiver that is down or never answers neither fails the run nor holds it past the flush bound.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { closedPort } from "../jobs/cli.ts"
import { newSecret, payouts, receiver, verifies } from "./receiver.ts"
import { tempDir } from "../kit/TempDir.ts"

const FIXTURE = join(import.meta.dirname, "../fixtures/payouts-valid.csv")

const batchFile = () => {
  const dir = tempDir("payouts-notify-")
  const file = join(dir, "settlements.csv")
  copyFileSync(FIXTURE, file)
  return { dir, file }
}

/** A sandbox run with --notify; the fixture's five rows all complete (exit 0). */
const runNotified = (url: string, secret: string) =>
  Effect.gen(function* () {
    const { dir, file } = batchFile()
    const ended = yield* payouts(["run", file, "--sandbox", "--notify", url, "--poll-interval", "100ms", "--poll-max", "300ms"], {
      PAYOUTS_STATE: join(dir, "state.db"),
      PAYOUTS_NOTIFY_SECRET: secret
    })
    return { ...ended, dir }
  })

describe("payouts run --notify (real CLI, real receiver)", () => {
  it.scopedLive(
    "a finished run POSTs batch.done, signed the Standard Webhooks way, with the batch's figures and no phone number",
    () =>
      Effect.gen(function* () {
        const hooks = yield* receiver()
        const secret = newSecret()
        const ended = yield* runNotified(hooks.url, secret)
        expect(ended.code, ended.stderr).toBe(0)
        expect(hooks.deliveries).toHaveLength(1)
        const [delivery] = hooks.deliveries
        expect(verifies(secret, delivery, delivery.at)).toBe(true)
        expect(delivery.headers["content-type"]).toBe("application/json")
        expect(delivery.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/)
        const body = JSON.parse(delivery.body)
        expect(body).toMatchObject({
          type: "batch.done",
          data: {
            file: "settlements.csv",
            outcome: "finished",
            exit_code: 0,
            counts: { completed: 5 },
            amounts: { XAF: { rows: 1, amount: "15000", completed_amount: "15000" }, XOF: { rows: 4, amount: "43000", completed_amount: "43000" } }
          }
        })
        expect(body.data.batch_id).toMatch(/^[0-9a-f]{16}$/)
        expect(Math.abs(Date.parse(body.timestamp) - delivery.at)).toBeLessThan(60_000)
        // Nothing of a row rides along: no phone (in any of the file's spellings), name or email.
        for (const fragment of ["677123456", "0701020304", "771234567", "90123456", "Mbarga", "example."]) expect(delivery.body).not.toContain(fragment)
        expect(ended.stderr).not.toContain(secret.slice(6))
        expect(ended.stderr).not.toMatch(/not delivered/)
      }),
    120_000
  )

  it.scopedLive(
    "a receiver that answers 500 gets the same notification again, with the same id, and the run is not affected",
    () =>
      Effect.gen(function* () {
        const hooks = yield* receiver((n) => (n === 0 ? 500 : 200))
        const secret = newSecret()
        const ended = yield* runNotified(hooks.url, secret)
        expect(ended.code, ended.stderr).toBe(0)
        expect(hooks.deliveries.map((d) => d.status)).toEqual([500, 200])
        const [first, second] = hooks.deliveries
        expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"])
        expect(second.body).toBe(first.body)
        for (const d of hooks.deliveries) expect(verifies(secret, d, d.at)).toBe(true)
        // Backoff: the second try waited (the first wait is 1s, jittered).
        expect(second.at - first.at).toBeGreaterThanOrEqual(500)
        expect(ended.stderr).not.toMatch(/not delivered/)
      }),
    120_000
  )

  it.scopedLive(
    "a receiver that is down fails nothing: the run ends as it would, the outputs are written, and it says the notification was given up",
    () =>
      Effect.gen(function* () {
        const port = yield* closedPort
        const began = Date.now()
        const ended = yield* runNotified(`http://127.0.0.1:${port}/hooks/T0KEN-in-path`, newSecret())
        expect(ended.code, ended.stderr).toBe(0)
        expect(existsSync(join(ended.dir, "settlements.ledger.csv"))).toBe(true)
        expect(ended.stderr).toMatch(/Finished \(exit 0\)/)
        expect(ended.stderr).toMatch(/notification\(s\) to http:\/\/127\.0\.0\.1:\d+ not delivered within 5s of the end: given up/)
        // The receiver's path (often a token) is never printed.
        expect(ended.stderr).not.toContain("T0KEN")
        // Five tries with backoff would take 15s past the end; the flush bound gives up after 5s.
        expect(ended.at - began).toBeLessThan(60_000)
      }),
    120_000
  )

  it.scopedLive(
    "a receiver that never answers holds the process only for the flush bound after the run's end",
    () =>
      Effect.gen(function* () {
        const hooks = yield* receiver(() => "hang")
        const ended = yield* runNotified(hooks.url, newSecret())
        expect(ended.code, ended.stderr).toBe(0)
        expect(hooks.deliveries).toHaveLength(1)
        expect(ended.stderr).toMatch(/1 notification\(s\) to http:\/\/127\.0\.0\.1:\d+ not delivered within 5s of the end: given up/)
        // Unbounded, five tries of 10s each (plus backoff) would keep it over a minute.
        expect(ended.at - hooks.deliveries[0].at).toBeLessThan(30_000)
      }),
    120_000
  )

  it.scopedLive(
    "a profile supplies the receiver and the secret (notify_url, notify_secret): no flag, no variable",
    () =>
      Effect.gen(function* () {
        const hooks = yield* receiver()
        const secret = newSecret()
        const { dir, file } = batchFile()
        const config = join(dir, "config")
        mkdirSync(join(config, "payouts"), { recursive: true })
        const profiles = { profiles: { ops: { notify_url: hooks.url, notify_secret: secret } } }
        writeFileSync(join(config, "payouts", "config.json"), JSON.stringify(profiles), { mode: 0o600 })
        const ended = yield* payouts(["run", file, "--sandbox", "--profile", "ops", "--poll-interval", "100ms", "--poll-max", "300ms"], {
          PAYOUTS_STATE: join(dir, "state.db"),
          XDG_CONFIG_HOME: config
        })
        expect(ended.code, ended.stderr).toBe(0)
        expect(hooks.deliveries).toHaveLength(1)
        expect(verifies(secret, hooks.deliveries[0], hooks.deliveries[0].at)).toBe(true)
        expect(JSON.parse(hooks.deliveries[0].body).type).toBe("batch.done")
      }),
    120_000
  )

  it.scopedLive(
    "--notify without a usable secret is refused before anything runs (unsigned notifications are not offered)",
    () =>
      Effect.gen(function* () {
        const hooks = yield* receiver()
        const { dir, file } = batchFile()
        const missing = yield* payouts(["run", file, "--sandbox", "--notify", hooks.url], { PAYOUTS_STATE: join(dir, "state.db") })
        expect(missing.code).toBe(2)
        expect(missing.stderr).toMatch(/^payouts: --notify needs a signing secret: set PAYOUTS_NOTIFY_SECRET to whsec_/m)
        expect(missing.stderr).not.toMatch(/Embedded sandbox/)
        const short = "whsec_c2hvcnQ="
        const weak = yield* payouts(["run", file, "--sandbox", "--notify", hooks.url], { PAYOUTS_STATE: join(dir, "state.db"), PAYOUTS_NOTIFY_SECRET: short })
        expect(weak.code).toBe(2)
        expect(weak.stderr).toMatch(/PAYOUTS_NOTIFY_SECRET cannot sign: its key is 5 bytes; it must be 24 to 64/)
        expect(weak.stderr).not.toContain("c2hvcnQ")
        expect(existsSync(join(dir, "settlements.ledger.csv"))).toBe(false)
        expect(hooks.deliveries).toHaveLength(0)
      }),
    60_000
  )
})
