/**
 * Issue 31 item 6, through the binary and the job folder: the report of an approved batch names its
 * submitter and approver, counts failed and cancelled apart with the recipients' names, gives the
 * total debited per currency, and links the ready-to-fix CSV of the rows not paid, which moves with
 * the batch into done/; a copy of a paid file shows the rows its first run paid apart. The HTML is
 * read as text: every figure has a data- attribute to find it by.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { formatFor } from "../../src/output/Format.ts"
import { cli, FAST as CLI_FAST } from "../cli/binarySupport.ts"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const TEST = { failure: "+237670000002", cancelled: "+237670000004" }

const unescape = (text: string) =>
  text.replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

const field = (html: string, name: string) => unescape(new RegExp(`data-field="${name}">(.*?)</span>`).exec(html)?.[1] ?? "")

/** The body rows of a table, as cell texts. */
const rowsOf = (html: string, name: string) => {
  const body = new RegExp(`data-table="${name}"[^>]*><thead>.*?</thead><tbody>(.*?)</tbody>`, "s").exec(html)?.[1] ?? ""
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((tr) => [...tr[1].matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((td) => unescape(td[1])))
}

const headOf = (html: string, name: string) => {
  const head = new RegExp(`data-table="${name}"[^>]*><thead><tr>(.*?)</tr></thead>`, "s").exec(html)?.[1] ?? ""
  return [...head.matchAll(/<th[^>]*>(.*?)<\/th>/gs)].map((th) => unescape(th[1]))
}

describe("the report of an approved batch (issue 31 item 6)", () => {
  it.scopedLive(
    "names submitter and approver, counts failed and cancelled apart with names, gives the total debited, links the CSV of the rows not paid",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const root = tempDir("payouts-report-people-")
        const state = join(root, ".state", "payouts.db")
        writeCsv(root, "week.csv", [
          { id: "P1", amount: "1234567", phone: ordinaryPhone(1), name: "Awa Diallo" },
          { id: "P2", amount: "2000", phone: ordinaryPhone(2), name: "Jean Dupont" },
          { id: "F1", amount: "1500000", phone: TEST.failure, name: "Moussa Traoré" },
          { id: "F2", amount: "3000", phone: TEST.failure, name: "Moussa Traoré" },
          { id: "C1", amount: "2000000", operator: "carrier2_cm", phone: TEST.cancelled, name: "Koffi O'Yao" }
        ])
        const env = { PAYOUTS_STATE: state, LC_ALL: "", LC_NUMERIC: "", LANG: "en_US.UTF-8" }
        const service = serviceOf(sandbox)
        const waiting = yield* payoutsDone(service, ["watch", root, "--once", "--require-approval", "--submitted-by", "alice", ...FAST], env)
        expect(waiting.code, waiting.output).toBe(0)
        const hint = /approve with: payouts approve (\S+)/.exec(waiting.output)
        expect(hint, waiting.output).not.toBeNull()
        const approved = yield* payoutsDone(service, ["approve", hint![1], "--jobs", root, "--by", "bob"], env)
        expect(approved.code, approved.output).toBe(0)
        // The approver reads what they approve with separators and the total debited (estimated fees: 2%, at least 50).
        expect(approved.stderr).toContain("XAF: 5 rows, 4,739,567 XAF + est. fees 94,802 XAF = total debited 4,834,369 XAF) by bob at ")
        const paid = yield* payoutsDone(service, ["watch", root, "--once", "--submitted-by", "alice", ...FAST], env)
        expect(paid.code, paid.output).toBe(0)

        const done = join(root, "done")
        expect(readdirSync(done).sort()).toContain("week.unpaid.csv")
        const html = readFileSync(join(done, "week.report.html"), "utf8")
        // It names the people paid: owner-only, as every output.
        expect(statSync(join(done, "week.report.html")).mode & 0o777).toBe(0o600)
        expect(field(html, "approved_by")).toBe("bob")
        expect(field(html, "approved_at")).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
        expect(field(html, "submitted_by")).toBe("alice")

        // Two failed, one cancelled: apart in their sections, as on the cards.
        const failedHead = headOf(html, "failed")
        const pick = (rows: ReadonlyArray<ReadonlyArray<string>>, column: string) => rows.map((r) => r[failedHead.indexOf(column)])
        expect(pick(rowsOf(html, "failed"), "id")).toEqual(["F1", "F2"])
        expect(pick(rowsOf(html, "failed"), "name")).toEqual(["Moussa Traoré", "Moussa Traoré"])
        expect(pick(rowsOf(html, "cancelled"), "id")).toEqual(["C1"])
        expect(pick(rowsOf(html, "cancelled"), "name")).toEqual(["Koffi O'Yao"])
        expect(html).toContain("<h2>Failed rows (2)</h2>")
        expect(html).toContain("<h2>Cancelled rows (1)</h2>")
        expect(/data-card="failed"><span>failed<\/span><b class="big">(\d+)</.exec(html)?.[1]).toBe("2")
        expect(/data-card="cancelled"><span>cancelled<\/span><b class="big">(\d+)</.exec(html)?.[1]).toBe("1")

        // Paid 1,236,567 XAF; fees charged by the sandbox, 1% rounded up with a minimum of 50: 12,346 + 50.
        const en = formatFor("en-US")
        expect(rowsOf(html, "debited")).toEqual([["XAF", "1,236,567 XAF", "12,396 XAF", `${en.minor(1_248_963, "XAF")} XAF`]])

        // The link, and the file it opens: the rows not paid in the input's columns, owner-only.
        expect(/<a data-link="unpaid-csv" href="([^"]+)"/.exec(html)?.[1]).toBe("week.unpaid.csv")
        const fixFile = join(done, "week.unpaid.csv")
        expect(statSync(fixFile).mode & 0o777).toBe(0o600)
        const [header, ...lines] = readFileSync(fixFile, "utf8").trimEnd().split("\n")
        expect(header).toBe("id,amount,currency,operator,phone,name,email,description")
        expect(lines.map((l) => l.split(",").slice(0, 6))).toEqual([
          ["F1", "1500000", "XAF", "carrier1_cm", TEST.failure, "Moussa Traoré"],
          ["F2", "3000", "XAF", "carrier1_cm", TEST.failure, "Moussa Traoré"],
          ["C1", "2000000", "XAF", "carrier2_cm", TEST.cancelled, "Koffi O'Yao"]
        ])
      }),
    180_000
  )

  it.scopedLive("a copy of a paid file: the rows its first run paid are shown apart, outside the total debited", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-report-copy-")
      const state = join(dir, "state.db")
      const rows = [
        { id: "K1", amount: "1234567", phone: ordinaryPhone(31) },
        { id: "K2", amount: "2500", phone: ordinaryPhone(32) }
      ]
      const env = { LC_ALL: "", LC_NUMERIC: "", LANG: "en_US.UTF-8" }
      const first = yield* cli(sandbox, state, ["run", writeCsv(dir, "week49.csv", rows), ...CLI_FAST], env)
      expect(first.code, first.stderr).toBe(0)
      const again = yield* cli(sandbox, state, ["run", writeCsv(dir, "week49-copy.csv", rows), ...CLI_FAST], env)
      expect(again.code, again.stderr).toBe(0)
      const html = readFileSync(join(dir, "week49-copy.report.html"), "utf8")
      expect(html).toContain("<h2>Already paid, not by this batch (2)</h2>")
      expect(/data-field="already_paid">(.*?)<\/p>/.exec(html)?.[1]).toMatch(/^2 row\(s\) \(1,237,067 XAF\) already paid by batch \w+ \(week49\.csv\)/)
      expect(rowsOf(html, "already-paid")).toEqual([["XAF", "2", "1,237,067 XAF", "12,396 XAF"]])
      expect(rowsOf(html, "debited")).toEqual([["XAF", "0 XAF", "0 XAF", "0 XAF"]])
      // Nor in the operators' figures or the times to final status: this batch sent none of them.
      expect(rowsOf(html, "operators")).toEqual([["none"]])
      expect(html).toMatch(/<b data-field="median">0\.0 s<\/b>.*?&middot; 0 rows/s)
      expect(rowsOf(readFileSync(join(dir, "week49.report.html"), "utf8"), "operators")).toEqual([["carrier1_cm", "2", "2", "0", "0", "0"]])
    }),
    120_000
  )
})
