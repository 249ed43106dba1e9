import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { reportJson } from "../../src/cli/ReconcileText.ts"
import { reconcileBatch } from "../../src/run/ReconcileBatch.ts"
import { StateStore } from "../kit/Store.ts"
import { ordinaryPhone, readLedger, run, writeCsv } from "../run/support.ts"
import { admin, startSandbox, accountOf } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { layersFor, refund } from "./support.ts"

describe("payouts reconcile", () => {
  it.scopedLive("detects a refund made on the service side, updates the ledger, and agrees afterwards", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir()
      const file = writeCsv(dir, "recon.csv", Array.from({ length: 4 }, (_, i) => ({ id: `C${i}`, amount: String(10_000 + i * 1000), phone: ordinaryPhone(i) })))
      const state = join(dir, "state.db")
      expect((yield* run(sandbox, { file, state })).exitCode).toBe(0)
      const batchId = JSON.parse(readFileSync(join(dir, "recon.summary.json"), "utf8")).batch_id
      const account = accountOf(sandbox)

      const clean = yield* reconcileBatch(account, batchId).pipe(Effect.provide(layersFor(sandbox, state)))
      expect(clean.ok).toBe(true)
      expect(clean.listed).toBe(4)
      expect(clean.totals.XAF.agree).toBe(true)

      const row = readLedger(join(dir, "recon.ledger.csv"))[1]
      const refunded = yield* refund(sandbox, row.reference)
      expect(refunded.status).toBe(200)

      const report = yield* reconcileBatch(account, batchId).pipe(Effect.provide(layersFor(sandbox, state)))
      expect(report.ok).toBe(false)
      expect(reportJson(report).findings).toEqual([
        { kind: "changed", line: 3, token: expect.any(String), detail: "ledger completed, service refunded", references: [row.reference] }
      ])
      expect(report.totals.XAF.agree).toBe(false)
      expect(report.totals.XAF.ours.completed).toBe(4)
      expect(report.totals.XAF.service.completed).toBe(3)
      expect(report.updated).toBe(1)
      const stored = yield* Effect.flatMap(StateStore, (s) => s.account(account).findRowByReference(row.reference)).pipe(Effect.provide(layersFor(sandbox, state)))
      expect(Option.getOrThrow(stored).state).toBe("refunded")

      const again = yield* reconcileBatch(account, batchId).pipe(Effect.provide(layersFor(sandbox, state)))
      expect(again.ok).toBe(true)
      expect((yield* admin(sandbox).invariants).ok).toBe(true)
    })
  )
})
