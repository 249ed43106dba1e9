/**
 * The report page on its own (ReportHtml.ts), read as text (issue 31 item 6): rows already paid by
 * another batch shown apart; failed and cancelled counted apart with names; approver, submitter and
 * the total debited; the link to the ready-to-fix CSV; text from the file escaped.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatFor } from "../../src/output/Format.ts"
import type { ReportData } from "../../src/output/ReportData.ts"
import { renderReport } from "../../src/output/ReportHtml.ts"

const row = (id: string, name: string, status: string) => ({
  line: 2, id, reference: `TXN-${id}`, operator: "carrier1_cm", amount: "1,500,000 XAF", name, phone: "+237*******02", status, error: "Recipient not found"
})

const data: ReportData = {
  summary: {
    batch_id: "b7c1",
    file: "/jobs/done/copy.csv",
    outcome: "finished",
    counts: { completed: 1, failed: 2, cancelled: 1, already_paid: 3 },
    totals: { XAF: { rows: 4, amount: "5002000", completed_amount: "2000", fees: "50" } },
    stuck: [],
    already_paid: { rows: 3, totals: { XAF: { rows: 3, amount: "1500000", fees: "15000" } }, first_day: "2026-11-26", last_day: "2026-11-26", earlier_run: { batch_id: "b7c1", file: "week49.csv" } },
    exit_code: 1
  },
  operators: [],
  timesToFinal: [],
  notPaid: [
    { status: "failed", total: 2, rows: [row("F1", "Moussa <Traoré>", "failed"), row("F2", "Awa", "failed")] },
    { status: "cancelled", total: 1, rows: [row("C1", "Koffi", "cancelled")] },
    { status: "expired", total: 0, rows: [] },
    { status: "refunded", total: 0, rows: [] },
    { status: "unknown", total: 0, rows: [] }
  ],
  unpaid: [],
  unpaidTotal: 0,
  repay: {},
  format: formatFor("en-US"),
  feesEstimated: {},
  debited: [{ currency: "XAF", paidMinor: 2000, feesMinor: 50 }],
  people: { approvedBy: "bob", approvedAt: "2026-11-27T09:00:00.000Z", submittedBy: "alice", runBy: "payouts@pay-1" },
  unpaidCsv: { file: "copy.unpaid.csv", rows: 3 }
}

const section = (html: string, title: string) => new RegExp(`<h2>${title}</h2>(.*?)</section>`, "s").exec(html)?.[1] ?? ""

describe("the report page (issue 31 item 6)", () => {
  const html = renderReport(data)

  it("shows the rows another batch paid apart, with that batch, and out of the other figures", () => {
    const apart = section(html, "Already paid, not by this batch \\(3\\)")
    expect(apart).toContain("3 row(s) (1,500,000 XAF) already paid by batch b7c1 (week49.csv) on 2026-11-26: not paid again")
    expect(apart).toContain("<td>XAF</td><td class=\"n\">3</td><td class=\"n\">1,500,000 XAF</td><td class=\"n\">15,000 XAF</td>")
    expect(section(html, "Total debited per currency")).toContain("<td>XAF</td><td class=\"n\">2,000 XAF</td><td class=\"n\">50 XAF</td><td class=\"n\">2,050 XAF</td>")
    expect(renderReport({ ...data, summary: { ...data.summary, already_paid: undefined } })).not.toContain("Already paid, not by this batch")
  })

  it("counts failed and cancelled apart, with names escaped; names approver and submitter; links the CSV", () => {
    expect(section(html, "Failed rows \\(2\\)")).toContain("<td>Moussa &lt;Traoré&gt;</td>")
    expect(section(html, "Cancelled rows \\(1\\)")).toContain("<td>Koffi</td>")
    expect(html).not.toContain("Expired rows")
    expect(html).toContain(`<span data-field="approved_by">bob</span> at <span data-field="approved_at">2026-11-27 09:00:00 UTC</span>`)
    expect(html).toContain(`<span data-field="submitted_by">alice</span>`)
    expect(html).toContain(`<a data-link="unpaid-csv" href="copy.unpaid.csv">copy.unpaid.csv</a>`)
    expect(html).toContain("payouts retry b7c1 --fix copy.unpaid.csv")
    const bare = renderReport({ ...data, people: {}, unpaidCsv: undefined })
    expect(bare).toContain(`<span data-field="approved_by">none recorded</span>`)
    expect(bare).not.toContain("unpaid-csv")
  })
})
