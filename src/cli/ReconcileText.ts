/** The words of `payouts reconcile`: its batch and account reports as people read them, and as --json prints them. */
import type { AccountReport } from "../run/AccountCheck.ts"
import type { AccountFact, BatchFact } from "../run/Findings.ts"
import type { ReconcileReport, SideTotals } from "../run/ReconcileBatch.ts"
import { DEFAULT_LOCALE, type Format, formatFor } from "../output/Format.ts"
import { listingGapText } from "./ListingText.ts"

/** Amounts in a finding are read by people and kept in --json alike: major units, en-US separators. */
const PLAIN = formatFor(DEFAULT_LOCALE)

export const batchFactText = (fact: BatchFact): string => {
  switch (fact._tag) {
    case "Duplicate":
      return `${fact.count} payouts carry this row's token`
    case "Unrecorded":
      return `payout ${fact.reference} is not the one the ledger records (${fact.recorded ?? "none"})`
    case "NoPayout":
      return `ledger says ${fact.state} but no payout carries the token`
    case "UnknownToService":
      return `payout ${fact.reference} is unknown to the service`
    case "StatusUnread":
      return `status of ${fact.reference}: ${fact.message}`
    case "Anomaly":
      return fact.problem
    case "Changed":
      return `ledger ${fact.ledger}, service ${fact.service}`
    case "ListingIncomplete":
      return `listing of ${fact.day} incomplete: ${listingGapText(fact.gap)}`
  }
}

export const accountFactText = (fact: AccountFact): string => {
  switch (fact._tag) {
    case "Incomplete":
      return `listing of ${fact.day} could not be read completely: ${listingGapText(fact.gap)}`
    case "Alarm":
      return `account alarm: ${fact.reason}`
    case "Unmatched":
      return `${fact.count} payout(s) carry a token no row of this account has`
    case "Duplicate":
      return `${fact.count} payouts carry this row's token`
    case "Mismatch": {
      const row = fact.rowAmountMinor === null ? "without an amount" : `${PLAIN.minor(fact.rowAmountMinor, fact.rowCurrency)} ${fact.rowCurrency}`
      return `${fact.reference} is ${PLAIN.minor(fact.amountMinor, fact.currency)} ${fact.currency}; the row is ${row}`
    }
    case "Unrecorded":
      return `${fact.reference} is not the reference the store records (${fact.recorded ?? "none"}, row ${fact.state})`
  }
}

/** A batch report as --json prints it: each finding with its `detail` in words. */
export const reportJson = (report: ReconcileReport) => ({
  ...report,
  findings: report.findings.map(({ fact, kind, line, references, token }) => ({ kind, line, token, detail: batchFactText(fact), references }))
})

/** The account report as --json prints it. */
export const accountReportJson = (report: AccountReport) => ({
  ...report,
  findings: report.findings.map(({ batchId, fact, kind, line, references, token }) => ({ kind, token, batchId, line, detail: accountFactText(fact), references }))
})

/** Counts and amounts with the user's separators, each amount with its currency. */
export const describeReport = (report: ReconcileReport, format: Format): string => {
  const n = format.count
  const lines = [`Batch ${report.batch_id}: ${n(report.listed)} payouts listed since ${report.scanned_from ?? "-"}, ${n(report.checked)} statuses checked.`]
  for (const f of report.findings) lines.push(`  line ${f.line} [${f.token}] ${f.kind}: ${batchFactText(f.fact)}`)
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
    lines.push(`  ${f.kind}${f.token === "" ? "" : ` [${f.token}]`}${where}: ${accountFactText(f.fact)}${f.references.length > 0 ? ` (${f.references.join(", ")})` : ""}`)
  }
  lines.push(r.ok ? "Every payout carrying one of our tokens matches exactly one row." : "Something is off: a person should look (payouts resolve).")
  return lines.join("\n")
}
