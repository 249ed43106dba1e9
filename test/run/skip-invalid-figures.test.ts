/**
 * Issue 12 item 8: with --skip-invalid the ledger shows a rejected row's amount as the file wrote it,
 * the totals count only the rows sent, and the report lists the rows rejected or skipped, with why.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, readLedger, run, writeCsv } from "./support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

/** The cells of each body row of one report table, tags stripped. */
const reportTable = (html: string, name: string): Array<Array<string>> => {
  const body = new RegExp(`data-table="${name}"><thead>.*?</thead><tbody>(.*?)</tbody>`, "s").exec(html)?.[1] ?? ""
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((tr) => [...tr[1].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((td) => td[1]))
}

describe("--skip-invalid: the figures of rejected and skipped rows", () => {
  it.scopedLive("ledger amounts as written, totals of the rows sent only, rejected and skipped rows in the report", () =>
    Effect.gen(function* () {
      // Enough for the two small rows and their 50 XAF minimum fees, not for the 50,000 row.
      const sandbox = yield* startSandbox({ fund: { XAF: 4_000 } })
      const dir = tempDir()
      const file = writeCsv(dir, "mixed.csv", [
        { id: "OK1", amount: "1000", phone: ordinaryPhone(1) },
        { id: "NG", amount: "2000", currency: "NGN", phone: ordinaryPhone(2) },
        { id: "GH", amount: "2000.50", currency: "GHS", phone: ordinaryPhone(3) },
        { id: "AMB", amount: "100.000", phone: ordinaryPhone(4) },
        { id: "OK2", amount: "2000", phone: ordinaryPhone(5) },
        { id: "BIG", amount: "50000", phone: ordinaryPhone(6) }
      ])
      const result = yield* run(sandbox, {
        file,
        state: join(dir, "state.db"),
        request: { skipInvalid: true },
        settings: { onInsufficient: "partial" }
      })
      expect(result.exitCode).toBe(1)
      expect((yield* admin(sandbox).payouts).length).toBe(2)

      const ledger = readLedger(join(dir, "mixed.ledger.csv"))
      expect(ledger.map((r) => [r.line, r.id, r.currency, r.amount, r.status])).toEqual([
        ["2", "OK1", "XAF", "1000", "completed"],
        ["3", "NG", "NGN", "2000", "rejected"],
        ["4", "GH", "GHS", "2000.50", "rejected"],
        ["5", "AMB", "XAF", "100.000", "rejected"],
        ["6", "OK2", "XAF", "2000", "completed"],
        ["7", "BIG", "XAF", "50000", "skipped"]
      ])

      const summary = JSON.parse(readFileSync(join(dir, "mixed.summary.json"), "utf8"))
      expect(summary.totals).toEqual({
        XAF: { rows: 2, amount: "3000", completed_amount: "3000", fees: "100", fees_estimated: "100" }
      })

      const html = readFileSync(join(dir, "mixed.report.html"), "utf8")
      expect(reportTable(html, "totals")).toEqual([["XAF", "2", "3,000", "3,000", "100", "100"]])
      const unpaid = reportTable(html, "unpaid")
      // Columns: line, id, name, operator, amount, status, reason.
      expect(unpaid.map(([line, id, , , amount, status]) => [line, id, amount, status])).toEqual([
        ["3", "NG", "2000 NGN", "rejected"],
        ["4", "GH", "2000.50 GHS", "rejected"],
        ["5", "AMB", "100.000 XAF", "rejected"],
        ["7", "BIG", "50,000 XAF", "skipped"]
      ])
      expect(unpaid[0][6]).toContain("no payout operator serves NGN")
      expect(unpaid[2][6]).toContain("ambiguous: thousands separator?")
      expect(unpaid[3][6]).toContain("insufficient balance")
    })
  )
})
