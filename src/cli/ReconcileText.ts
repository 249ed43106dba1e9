/** The words of `payouts reconcile`: its batch and account reports as people read them (--json prints the reports). */
import type { AccountReport } from "../run/AccountCheck.ts"
import type { ReconcileReport, SideTotals } from "../run/ReconcileBatch.ts"
import { DEFAULT_LOCALE, type Format, formatFor } from "../output/Format.ts"

/** Counts and amounts with the user's separators, each amount with its currency. */
export const describeReport = (report: ReconcileReport, format: Format): string => {
  const n = format.count
  const lines = [`Batch ${report.batch_id}: ${n(report.listed)} payouts listed since ${report.scanned_from ?? "-"}, ${n(report.checked)} statuses checked.`]
  for (const f of report.findings) lines.push(`  line ${f.line} [${f.token}] ${f.kind}: ${f.detail}`)
  for (const [c, t] of Object.entries(report.totals)) {
    const side = (s: SideTotals) => `${n(s.completed)} completed, ${format.decimal(s.completed_amount)} ${c} + fees ${format.decimal(s.fees)} ${c}`
    lines.push(`  ${c}: ours ${side(t.ours)}; service ${side(t.service)}: ${t.agree ? "agree" : "DISAGREE"}`)
  }
  if (report.updated > 0) lines.push(`  ${n(report.updated)} row(s) updated in the ledger.`)
  if (report.busy === true) lines.push("  The batch is being run by another process: nothing was updated here; its runner keeps the ledger.")
  lines.push(report.ok ? "Everything agrees." : "Disagreements found.")
  return lines.join("\n")
}

export const describeAccountReport = (r: AccountReport, format: Format = formatFor(DEFAULT_LOCALE)): string => {
  const lines = [`Account check ${r.from} to ${r.to}: ${format.count(r.payouts)} payouts listed, ${format.count(r.tokened)} carrying a token of ours.`]
  for (const f of r.findings) {
    const where = f.batchId === null ? "" : ` batch ${f.batchId} line ${f.line}`
    lines.push(`  ${f.kind}${f.token === "" ? "" : ` [${f.token}]`}${where}: ${f.detail}${f.references.length > 0 ? ` (${f.references.join(", ")})` : ""}`)
  }
  lines.push(r.ok ? "Every payout carrying one of our tokens matches exactly one row." : "Something is off: a person should look (payouts resolve).")
  return lines.join("\n")
}
