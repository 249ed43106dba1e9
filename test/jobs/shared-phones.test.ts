/**
 * One phone, one recipient against history (issue 30 item 2): a phone an earlier batch paid to another
 * name is in the approval request `watch` writes, and on the confirmation screen before paying.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { confirmationOverview } from "../../src/cli/NoticeText.ts"
import { approve } from "../../src/jobs/Approval.ts"
import { DEFAULT_LOCALE, formatFor } from "../../src/output/Format.ts"
import { jobFolder } from "../../src/jobs/JobFolder.ts"
import { ordinaryPhone, run, writeCsv } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { layersFor, stateIn, watcherFor } from "./support.ts"

const PHONE = ordinaryPhone(41)
const MASKED = `${PHONE.slice(0, 4)}*******${PHONE.slice(-2)}`

/** Week 1 paid: PHONE to "Amina Bello". */
const paidWeek1 = (sandbox: Parameters<typeof run>[0], state: string) =>
  Effect.gen(function* () {
    const dir = tempDir("payouts-week1-")
    const file = writeCsv(dir, "week1.csv", [{ id: "W1-1", amount: "1000", phone: PHONE, name: "Amina Bello" }])
    const week1 = yield* run(sandbox, { file, state })
    expect(week1.exitCode).toBe(0)
  })

describe("a phone paid before under another name", () => {
  it.scopedLive("is in the approval request watch writes", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const root = join(tempDir("payouts-jobs-"), "jobs")
      mkdirSync(root, { recursive: true })
      mkdirSync(join(root, ".state"), { recursive: true })
      yield* paidWeek1(sandbox, stateIn(root))
      writeCsv(root, "week2.csv", [
        { id: "W2-1", amount: "1500", phone: ordinaryPhone(42), name: "Paul Ngono" },
        { id: "W2-2", amount: "2500", phone: PHONE, name: "Jean Dupont" }
      ])
      const folder = jobFolder(root)
      yield* Effect.gen(function* () {
        const watcher = yield* watcherFor(sandbox, { root, requireApproval: true })
        yield* watcher.scan
        yield* watcher.idle
      }).pipe(Effect.provide(layersFor(sandbox, stateIn(root))))
      const request = JSON.parse(readFileSync(join(folder.awaiting, "week2.approval.json"), "utf8"))
      expect(request.status).toBe("awaiting")
      expect(request.shared_phones_history).toEqual({
        count: 1,
        rows: [{ line: 3, phone: MASKED, name: "Jean Dupont", earlier_name: "Amina Bello", earlier_batch: expect.any(String), earlier_file: "week1.csv", earlier_line: 2 }]
      })
      expect((yield* admin(sandbox).payouts).length).toBe(1)
    }), 120_000)

  it.scopedLive("under --allow-shared-phone, an approved batch with a shared phone is paid whole: its control totals count every row", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const root = join(tempDir("payouts-jobs-"), "jobs")
      mkdirSync(root, { recursive: true })
      writeCsv(root, "family.csv", [
        { id: "F-1", amount: "1000", phone: PHONE, name: "Amina Bello" },
        { id: "F-2", amount: "2000", phone: PHONE, name: "Jean Dupont" }
      ])
      const folder = jobFolder(root)
      yield* Effect.gen(function* () {
        const watcher = yield* watcherFor(sandbox, { root, requireApproval: true, request: { allowSharedPhone: true } })
        yield* watcher.scan
        yield* watcher.idle
        const request = JSON.parse(readFileSync(join(folder.awaiting, "family.approval.json"), "utf8"))
        expect(request.rows).toBe(2)
        yield* approve(folder, request.batch_id, "alice")
        yield* watcher.scan
        yield* watcher.idle
      }).pipe(Effect.provide(layersFor(sandbox, stateIn(root))))
      const summary = JSON.parse(readFileSync(join(folder.done, "family.summary.json"), "utf8"))
      expect(summary.counts).toEqual({ completed: 2 })
      expect(summary.allow_shared_phone).toBe(true)
      expect(summary.shared_phones.count).toBe(1)
      expect((yield* admin(sandbox).payouts).length).toBe(2)
    }), 120_000)

  it.scopedLive("is on the confirmation screen before paying", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir("payouts-confirm-")
      const state = join(dir, "state.db")
      yield* paidWeek1(sandbox, state)
      const file = writeCsv(dir, "week2.csv", [{ id: "W2-2", amount: "2500", phone: PHONE, name: "Jean Dupont" }])
      const shown: Array<string> = []
      const declined = yield* run(sandbox, { file, state, request: { confirm: (overview) => Effect.sync(() => shown.push(confirmationOverview(overview, formatFor(DEFAULT_LOCALE)))).pipe(Effect.as(false)) } })
      expect(declined.exitCode).toBe(2)
      expect(shown).toHaveLength(1)
      expect(shown[0]).toContain(`line 2: phone ${MASKED} to "Jean Dupont" was paid to "Amina Bello" in week1.csv line 2`)
      expect(shown[0]).not.toContain(PHONE)
      expect((yield* admin(sandbox).payouts).length).toBe(1)
    }), 120_000)
})
