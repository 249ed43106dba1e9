/**
 * A lease renewal that comes late (a loaded machine) stops the claims for a moment. It must not end
 * the run: a run that found nothing followed and nothing unknown at that moment used to conclude with
 * rows still validated (exit 3, a rerun needed).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { admin, countByToken, ordinaryPhone, run, startSandbox, tempDir, writeCsv } from "./support.ts"

describe("a late lease renewal", () => {
  it.scopedLive("pauses the claims until it is renewed, then every row is paid once (exit 0)", () =>
    Effect.gen(function* () {
      // 2 slots, 40 ms a POST: about 50 payouts a second, so rows are left when the lease lapses.
      const sandbox = yield* startSandbox({ timeScale: 1_000, payoutDelaySeconds: 1, faults: "payout.latency=40ms-40ms" })
      const dir = tempDir()
      const rows = 120
      const file = writeCsv(dir, "late.csv", Array.from({ length: rows }, (_, i) => ({ id: `L-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) })))
      let renewals = 0
      const result = yield* run(sandbox, {
        file,
        state: join(dir, "state.db"),
        // TTL 1.2 s: renewed every 0.4 s, valid to 0.3 s before its end. The second renewal takes 1.5 s,
        // so from about 1.3 s to 2.7 s the lease has lapsed and nothing is claimed, while the rows
        // sent before are followed to their final status within that time (polls every 50 ms).
        settings: { concurrency: 2, leaseTtlMs: 1_200, pollIntervalMs: 50, pollMaxMs: 100 },
        store: (store) => ({
          ...store,
          batch: (accountId, batchId) => {
            const batch = store.batch(accountId, batchId)
            return {
              ...batch,
              renewLease: (fence, ttl) => (++renewals === 2 ? Effect.zipRight(Effect.sleep("1500 millis"), batch.renewLease(fence, ttl)) : batch.renewLease(fence, ttl))
            }
          }
        })
      })
      expect(renewals).toBeGreaterThanOrEqual(3)
      const counts = countByToken(yield* admin(sandbox).payouts)
      expect({ exit: result.exitCode, paid: counts.size, twice: [...counts.values()].filter((n) => n > 1).length }).toEqual({ exit: 0, paid: rows, twice: 0 })
    })
  , 60_000)
})
