/**
 * Tables for people through the real binary (issue 16, item 4; issue 33, item 4): `batches` counts
 * failed and cancelled apart with a readable creation time, `status`, `wallet` and `reconcile` show
 * amounts with the user's thousands separators (LC_ALL, else LANG; en-US by default) and times in the
 * local zone with the zone named (`YYYY-MM-DD HH:MM:SS UTC` where it is UTC), or `...T...Z` with
 * `--utc`; headers in UPPERCASE; tables fit 100 columns off a terminal unless `--wide`; `--json`
 * keeps raw integers and ISO times.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { ordinaryPhone, readLedger, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST } from "./binarySupport.ts"

const READABLE = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/
const EN = { LC_ALL: "C.UTF-8", LC_NUMERIC: "", LANG: "", TZ: "UTC" }
const widest = (text: string) => Math.max(...text.split("\n").map((line) => line.length))

describe("tables for people (the binary)", () => {
  it.scopedLive("batches: failed and cancelled apart, a readable time; status and wallet: separators of the locale; --json raw", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ fund: { XAF: 50_000_000, XOF: 1_000_000 } })
      const dir = tempDir("payouts-tables-")
      const state = join(dir, "state.db")
      const file = writeCsv(dir, "tables.csv", [
        { id: "A1", amount: "1234567", phone: ordinaryPhone(1) },
        { id: "A2", amount: "5000", phone: ordinaryPhone(2) },
        { id: "F1", amount: "900", phone: "+237670000002" },
        { id: "C1", amount: "901", operator: "carrier2_cm", phone: "+237670000004" }
      ])
      const run = yield* cli(sandbox, state, ["run", file, ...FAST], EN)
      expect(run.code, run.stderr).toBe(1)

      // Off a terminal the table fits 100 columns: columns with nothing to say are left out, and it says so.
      const fitted = yield* cli(sandbox, state, ["batches"], EN)
      expect(fitted.code, fitted.stderr).toBe(0)
      expect(widest(fitted.stdout)).toBeLessThanOrEqual(100)
      const fittedHead = fitted.stdout.split("\n")[0].split(/\s{2,}/)
      expect(fittedHead).toEqual(expect.arrayContaining(["BATCH", "COMPLETED", "FAILED", "CANCELLED"]))
      expect(fittedHead).not.toContain("REFUNDED")
      expect(fitted.stdout.replace(/\s+/g, " ")).toMatch(/\(left out to fit: [a-z, ]*refunded[a-z, ]*; --wide shows every column\)/)

      const listed = yield* cli(sandbox, state, ["batches", "--wide"], EN)
      expect(listed.code, listed.stderr).toBe(0)
      const [head, row] = listed.stdout.trim().split("\n")
      const columns = head.split(/\s{2,}/)
      expect(columns).toEqual(expect.arrayContaining(["COMPLETED", "FAILED", "CANCELLED", "EXPIRED", "REFUNDED"]))
      const cells = row.split(/\s{2,}/)
      const at = (name: string) => cells[columns.indexOf(name)]
      expect([at("COMPLETED"), at("FAILED"), at("CANCELLED"), at("EXPIRED")]).toEqual(["2", "1", "1", "0"])
      expect(at("CREATED")).toMatch(new RegExp(`^${READABLE.source}$`))
      // The local zone, named; or UTC with Z under --utc.
      const douala = yield* cli(sandbox, state, ["batches", "--wide"], { ...EN, TZ: "Africa/Douala" })
      expect(douala.stdout).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d GMT\+1/)
      const utc = yield* cli(sandbox, state, ["batches", "--wide", "--utc"], { ...EN, TZ: "Africa/Douala" })
      expect(utc.stdout).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/)

      const json = yield* cli(sandbox, state, ["batches", "--json"], EN)
      const [batch] = JSON.parse(json.stdout)
      expect(batch).toMatchObject({ rows: 4, completed: 2, failed: 1, cancelled: 1, expired: 0 })
      expect(batch.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)

      const reference = readLedger(join(dir, "tables.ledger.csv")).find((r) => r.id === "A1")?.reference ?? ""
      const status = yield* cli(sandbox, state, ["status", reference], EN)
      expect(status.code, status.stderr).toBe(0)
      expect(status.stdout).toMatch(/^Amount:\s+1,234,567 XAF$/m)
      expect(status.stdout).toMatch(new RegExp(`^Created:\\s+${READABLE.source}$`, "m"))
      // German groups thousands with dots.
      const german = yield* cli(sandbox, state, ["status", reference], { LC_ALL: "", LC_NUMERIC: "", LANG: "de_DE.UTF-8", TZ: "UTC" })
      expect(german.stdout).toMatch(/^Amount:\s+1\.234\.567 XAF$/m)
      const raw = yield* cli(sandbox, state, ["status", reference, "--json"], { LC_ALL: "", LANG: "de_DE.UTF-8" })
      expect(JSON.parse(raw.stdout).amount).toBe(1234567)

      // reconcile's totals: major units with separators, each with its currency (issue 31 item 6); --json raw.
      const reconciled = yield* cli(sandbox, state, ["reconcile", batch.batch_id, "--ledger", join(dir, "tables.ledger.csv")], EN)
      expect(reconciled.code, reconciled.stderr).toBe(0)
      expect(reconciled.stdout).toMatch(/XAF: ours 2 completed, 1,239,567 XAF \+ fees [\d,]+ XAF; service 2 completed, 1,239,567 XAF \+ fees [\d,]+ XAF: agree/)
      const reconciledJson = yield* cli(sandbox, state, ["reconcile", batch.batch_id, "--json"], EN)
      expect(JSON.parse(reconciledJson.stdout).totals.XAF.ours.completed_amount).toBe("1239567")

      const wallet = yield* cli(sandbox, state, ["wallet"], EN)
      expect(wallet.code, wallet.stderr).toBe(0)
      expect(wallet.stdout).toMatch(/^XOF\s+1,000,000\s+1,000,000\s/m)
      const walletDe = yield* cli(sandbox, state, ["wallet"], { LC_ALL: "", LC_NUMERIC: "", LANG: "de_DE.UTF-8" })
      expect(walletDe.stdout).toMatch(/^XOF\s+1\.000\.000\s+1\.000\.000\s/m)
      const txs = yield* cli(sandbox, state, ["transactions", "--type", "payout"], { LC_ALL: "", LC_NUMERIC: "", LANG: "de_DE.UTF-8" })
      expect(txs.code, txs.stderr).toBe(0)
      expect(txs.stdout).toContain("1.234.567")
    })
  )
})
