/**
 * Issue 31 item 3, through the real binary: rows paid, but not by this batch, are said to be so and
 * are never counted as its payments. The same content run again under another name (a copy, a
 * re-drop into `watch`) is the batch its first run paid: the copy's summary counts its rows as
 * `already_paid` (by batch X, its first file, the day), none as completed, none in the totals; so
 * summing the summaries counts each payment once. Another state store meets the same rows through
 * the pre-scan: adopted from the listing, `already_paid.listed`, nothing paid again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { FAST as JOB_FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { cli, FAST } from "../cli/binarySupport.ts"
import { ordinaryPhone, writeCsv } from "./support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const week = (dir: string) =>
  writeCsv(dir, "week49.csv", [
    { id: "W49-1", amount: "5000", phone: ordinaryPhone(801) },
    { id: "W49-2", amount: "5000", phone: ordinaryPhone(802) },
    { id: "W49-3", amount: "5000", phone: ordinaryPhone(803) }
  ])

const summaryOf = (file: string) => JSON.parse(readFileSync(file.replace(/\.csv$/, ".summary.json"), "utf8"))

const DAY = String.raw`\d{4}-\d\d-\d\d`

describe("already paid by another batch (the binary)", () => {
  it.scopedLive(
    "a copy of a paid file: exit 0, nothing paid again, the summary counts its rows as already_paid by batch X, never as completed",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-already-")
        const state = join(dir, "state.db")
        const file = week(dir)
        const first = yield* cli(sandbox, state, ["run", file, ...FAST])
        expect(first.code, first.stderr).toBe(0)
        const paid = summaryOf(file)
        expect(paid.totals.XAF.completed_amount).toBe("15000")
        expect(paid.already_paid).toBeUndefined()

        const copy = join(dir, "week49-copy.csv")
        copyFileSync(file, copy)
        const again = yield* cli(sandbox, state, ["run", copy, ...FAST])
        expect(again.code, again.stderr).toBe(0)
        const s = summaryOf(copy)
        // The day its payouts became final (read from the summary: a run may cross midnight UTC).
        const day = s.already_paid.first_day
        expect(day).toBe(paid.finished_at.slice(0, 10))
        expect(again.stderr).toContain(`3 row(s) (15,000 XAF) already paid by batch ${paid.batch_id} (week49.csv) on ${day}: not paid again.`)
        expect(again.stderr).toContain("Finished (exit 0): paid 0.")
        expect(s.batch_id).toBe(paid.batch_id)
        expect(s.counts).toEqual({ already_paid: 3 })
        expect(s.total_rows).toBe(3)
        expect(s.totals.XAF).toMatchObject({ rows: 0, amount: "0", completed_amount: "0", fees: "0" })
        expect(s.already_paid).toEqual({
          rows: 3,
          totals: { XAF: { rows: 3, amount: "15000", fees: paid.totals.XAF.fees } },
          first_day: day,
          last_day: day,
          earlier_run: { batch_id: paid.batch_id, file: "week49.csv" }
        })
        // Summed over both summaries, every payment once.
        expect(Number(paid.totals.XAF.completed_amount) + Number(s.totals.XAF.completed_amount)).toBe(15000)
        expect((yield* admin(sandbox).payouts).length).toBe(3)

        // Another state store (no memory of the batch): the pre-scan finds the payouts in the listing.
        const other = yield* cli(sandbox, join(dir, "other.db"), ["run", copy, ...FAST, "--json"])
        expect(other.code, other.stderr).toBe(0)
        expect(other.stderr).toMatch(/line 2: already paid by payout \S+ \(completed, listed on \d{4}-\d\d-\d\d\), made outside this state store/)
        const adopted = JSON.parse(other.stdout)
        expect(adopted.counts).toEqual({ already_paid: 3 })
        expect(adopted.totals.XAF.completed_amount).toBe("0")
        expect(adopted.already_paid).toMatchObject({ rows: 3, listed: 3, totals: { XAF: { rows: 3, amount: "15000" } } })
        expect(adopted.already_paid.earlier_run).toBeUndefined()
        expect((yield* admin(sandbox).payouts).length).toBe(3)
        // Written again from that store (payouts ledger): still not this batch's payments.
        const out = join(dir, "again")
        const ledger = yield* cli(sandbox, join(dir, "other.db"), ["ledger", adopted.batch_id, "--out", out])
        expect(ledger.code, ledger.stderr).toBe(0)
        const rewritten = JSON.parse(readFileSync(join(out, "week49-copy.summary.json"), "utf8"))
        expect(rewritten.counts).toEqual({ already_paid: 3 })
        expect(rewritten.totals.XAF.completed_amount).toBe("0")
        expect(rewritten.already_paid).toMatchObject({ rows: 3, listed: 3 })
      }),
    120_000
  )

  it.scopedLive(
    "the same CSV dropped again into watch under another name: done/ holds both, summing them counts 15000 once, and the watch log says by which batch",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const root = join(tempDir("payouts-already-watch-"), "jobs")
        mkdirSync(root, { recursive: true })
        const env = { PAYOUTS_STATE: join(root, "..", "state.db") }
        const source = week(join(root, ".."))
        copyFileSync(source, join(root, "week49.csv"))
        const first = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...JOB_FAST], env)
        expect(first.code, first.output).toBe(0)
        copyFileSync(source, join(root, "week49-again.csv"))
        const second = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", ...JOB_FAST], env)
        expect(second.code, second.output).toBe(0)
        const summaries = readdirSync(join(root, "done")).filter((n) => n.endsWith(".summary.json")).map((n) => JSON.parse(readFileSync(join(root, "done", n), "utf8")))
        expect(summaries).toHaveLength(2)
        const completed = summaries.reduce((sum, s) => sum + Number(s.totals.XAF.completed_amount), 0)
        expect(completed).toBe(15000)
        const again = summaries.find((s) => s.already_paid !== undefined)
        expect(again?.file).toContain("week49-again.csv")
        expect(again?.already_paid.earlier_run.file).toBe("week49.csv")
        // The amount with the separators of the locale, as every amount a person reads (issue 33).
        expect(second.output).toMatch(new RegExp(`week49-again\\.csv: 3 row\\(s\\) \\(15\\D?000 XAF\\) already paid by batch ${again?.batch_id} \\(week49\\.csv\\) on ${DAY}`))
        expect((yield* admin(sandbox).payouts).length).toBe(3)
      }),
    180_000
  )
})
