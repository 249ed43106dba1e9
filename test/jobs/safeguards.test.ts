import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import { ordinaryPhone, readLedger, run, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox, accountOf } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { AccountId, BatchId } from "../../src/domain/Ids.ts"

const FAILS = "+237670000002"

const expectOnce = (payouts: ReadonlyArray<{ description: string }>) =>
  expect([...countByToken(payouts).values()].every((n) => n === 1)).toBe(true)

const batchState = (state: string, account: string, batchId: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    return Option.getOrThrow(yield* store.batch(AccountId.make(account), BatchId.make(batchId)).getBatch())
  }).pipe(Effect.provide(withHandles(SqliteStateStore.layer({ filename: state }))))

const resume = (state: string, account: string, batchId: string) =>
  Effect.flatMap(StateStore, (store) => store.batch(AccountId.make(account), BatchId.make(batchId)).setBatchState("open", null)).pipe(Effect.provide(withHandles(SqliteStateStore.layer({ filename: state }))))

describe("safeguards", () => {
  it.scopedLive("the stop rule pauses a batch whose settled rows fail too often; it says why and stays paused until resumed", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ faults: "payout.latency=25ms-35ms" })
      const dir = tempDir()
      const rows = Array.from({ length: 40 }, (_, i) => ({
        id: `R${i}`,
        amount: String(1000 + i),
        operator: i % 2 === 0 ? "carrier1_cm" : "carrier2_cm",
        phone: i % 3 === 2 ? ordinaryPhone(i) : FAILS
      }))
      const file = writeCsv(dir, "risky.csv", rows)
      const state = join(dir, "state.db")
      const setup = { file, state, settings: { concurrency: 1, safeguards: { stopMinSettled: 8, stopFailureRatio: 0.5, breakerFailures: 0 } } }
      const first = yield* run(sandbox, setup)
      expect(first.exitCode).toBe(3)
      const summary = JSON.parse(readFileSync(join(dir, "risky.summary.json"), "utf8"))
      expect(summary.paused).toMatch(/^stop rule: \d+ of \d+ settled rows failed/)
      expect(summary.outcome).toMatch(/^paused: stop rule/)
      expect(summary.counts.validated).toBeGreaterThan(10)
      const batch = yield* batchState(state, accountOf(sandbox), summary.batch_id)
      expect([batch.state, batch.pauseReason]).toEqual(["paused", summary.paused])
      const sent = (yield* admin(sandbox).payouts).length
      // Run again without resuming: nothing new is sent.
      expect((yield* run(sandbox, setup)).exitCode).toBe(3)
      expect((yield* admin(sandbox).payouts).length).toBe(sent)
      // Resumed with a looser rule: the rest is paid, each row once.
      yield* resume(state, accountOf(sandbox), summary.batch_id)
      const third = yield* run(sandbox, { ...setup, settings: { ...setup.settings, safeguards: { stopMinSettled: 1000 } } })
      expect(third.exitCode).toBe(1)
      expect((yield* admin(sandbox).payouts).length).toBe(40)
      expectOnce(yield* admin(sandbox).payouts)
    })
  )

  it.scopedLive("the circuit breaker holds one operator's rows after consecutive failures while the others are paid", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ faults: "payout.latency=25ms-35ms" })
      const dir = tempDir()
      const rows = Array.from({ length: 36 }, (_, i) =>
        i % 3 === 2
          ? { id: `OK${i}`, amount: String(2000 + i), operator: "carrier2_cm", phone: ordinaryPhone(i) }
          : { id: `KO${i}`, amount: String(1000 + i), operator: "carrier1_cm", phone: FAILS }
      )
      const file = writeCsv(dir, "breaker.csv", rows)
      const state = join(dir, "state.db")
      const setup = { file, state, settings: { concurrency: 1, safeguards: { breakerFailures: 4, stopMinSettled: 1000 } } }
      const result = yield* run(sandbox, setup)
      expect(result.exitCode).toBe(3)
      const ledger = readLedger(join(dir, "breaker.ledger.csv"))
      const of = (op: string) => ledger.filter((r) => r.operator === op)
      expect(of("carrier2_cm").every((r) => r.status === "completed")).toBe(true)
      const held = of("carrier1_cm").filter((r) => r.status === "validated").length
      expect(held).toBeGreaterThan(5)
      expect(of("carrier1_cm").filter((r) => r.status === "failed").length).toBeGreaterThanOrEqual(4)
      const summary = JSON.parse(readFileSync(join(dir, "breaker.summary.json"), "utf8"))
      expect(summary.paused).toMatch(/^breaker tripped for carrier1_cm \(\d+ consecutive failures\)/)
      expect(summary.stuck).toEqual([])
      expectOnce(yield* admin(sandbox).payouts)
    })
  )
})
