/**
 * What `payouts resolve` prints: for a person, a table of the rows that need one (amounts in major
 * units with the user's separators, times in UTC), each row's evidence, what a decision did and what
 * is left; for scripts (`--json`), the same with raw values (minor units and currency, ISO times).
 */
import { DateTime } from "effect"
import type { Format } from "../output/Format.ts"
import type { OpenRow, ResolveOutcome } from "../run/Resolve.ts"
import type { RowEvidence } from "../run/ResolveEvidence.ts"
import { formatLineRanges } from "./LineRanges.ts"
import { appliedText, resolveRefusalText } from "./ResolveText.ts"
import { column, orDash, renderTable } from "./Table.ts"

const iso = (ms: number) => new Date(ms).toISOString()

const amountOf = (f: Format, row: { readonly amountMinor: number | null; readonly currency: string }) =>
  row.amountMinor === null ? `- ${row.currency}` : `${f.minor(row.amountMinor, row.currency)} ${row.currency}`

/** "3 rows" / "1 row", counted with separators. */
export const rowsWord = (f: Format, n: number) => `${f.count(n)} row${n === 1 ? "" : "s"}`

/** Totals per currency of rows, e.g. "81,600 XAF + 1,200 XOF". */
export const totalsOf = (f: Format, rows: ReadonlyArray<{ readonly amountMinor: number | null; readonly currency: string }>): string => {
  const sums = new Map<string, number>()
  for (const r of rows) sums.set(r.currency, (sums.get(r.currency) ?? 0) + (r.amountMinor ?? 0))
  return [...sums.entries()].map(([currency, sum]) => `${f.minor(sum, currency)} ${currency}`).join(" + ")
}

/** The table of rows: line, id, masked phone, amount, state, since, why. */
export const rowsTable = (f: Format, rows: ReadonlyArray<RowEvidence>): string =>
  renderTable<RowEvidence>(
    [
      column("line", (r) => String(r.line), "right"),
      column("id", (r) => orDash(r.id)),
      column("phone", (r) => r.phone),
      column("amount", (r) => amountOf(f, r), "right"),
      column("state", (r) => r.state),
      column("since", (r) => f.time(r.since)),
      column("why", (r) => (r.needsPerson ? r.why : "-"))
    ],
    rows
  )

const payoutText = (f: Format) => (p: RowEvidence["carrying"][number]) => `${p.reference} (${f.minor(p.amountMinor, p.currency)} ${p.currency}, ${p.status}, ${p.day})`

/** Each row's evidence under the table; its events only when rows were named (a closer look). */
const evidenceLines = (f: Format, r: RowEvidence, withEvents: boolean): Array<string> => {
  const lines = [
    `line ${r.line}: token [${r.token}]${r.reference === null ? "" : `, reference ${r.reference}`}; ${
      r.carrying.length === 0 ? "no listed payout carries its token" : `listed payouts carrying its token: ${r.carrying.map(payoutText(f)).join("; ")}`
    }`
  ]
  if (r.possible.length > 0) {
    lines.push(`  same amount and currency without a readable token (check by hand): ${r.possible.map((p) => `${p.reference} "${p.description ?? ""}"`).join("; ")}`)
  }
  if (withEvents) {
    for (const e of r.events.slice(-6)) lines.push(`  ${f.time(DateTime.toEpochMillis(e.at))} ${e.fromState ?? "-"} -> ${e.toState} (${e.source})${e.detail === null ? "" : `: ${e.detail}`}`)
  }
  return lines
}

/** The closing line: how many rows still need a person and the command to see them, or that none does. */
export const closingLine = (f: Format, o: ResolveOutcome): string => {
  const open = o.stillOpen.length
  if (open > 0) {
    return `${rowsWord(f, open)} still need${open === 1 ? "s" : ""} a person: payouts resolve ${o.batchId}`
  }
  if (o.accountAlarm !== undefined) return `The account alarm still needs a person: payouts resolve ${o.batchId} --listing-ok --by NAME --reason TEXT`
  return `No row needs a person. Run the batch's file again (payouts run FILE) to finish it and rewrite its ledger.`
}

const decideHint = (batchId: string, rows: ReadonlyArray<RowEvidence>): Array<string> => {
  const unknown = rows.filter((r) => r.state === "unknown").map((r) => r.line)
  if (unknown.length === 0) return rows.some((r) => r.alarm !== null) ? [`Decide: payouts resolve ${batchId} --line N --by NAME --reason TEXT --acknowledge`] : []
  return [
    `Decide for one or several rows (--line N, --lines ${formatLineRanges(unknown)}, --all-unknown), with --by NAME --reason TEXT and one of:`,
    "  --resend (only while no listed payout carries the token), --abandon (declared not paid), --adopt REFERENCE (one row), --acknowledge (an alarm)"
  ]
}

export const describeResolve = (f: Format, o: ResolveOutcome, namedRows: boolean): string => {
  const lines: Array<string> = []
  if (o.listingCleared > 0) lines.push(`Account alarm cleared (${f.count(o.listingCleared)}).`)
  if (o.accountAlarm !== undefined) lines.push(`ACCOUNT ALARM: ${o.accountAlarm}\n  After checking the listing by hand: payouts resolve ${o.batchId} --listing-ok --by NAME --reason TEXT`)
  if (o.incompleteDays.length > 0) lines.push(`The listing of ${o.incompleteDays.join(", ")} could not be read completely: absence is not proven there.`)
  if (o.decision?.declined === true) lines.push("Not decided: nothing was changed.")
  for (const a of o.applied) lines.push(`Done: ${appliedText(a)}.`)
  for (const r of o.refused) lines.push(`Not done: ${resolveRefusalText(r.refusal)}`)
  if (o.decision === undefined || (namedRows && !o.decision.declined)) {
    if (o.rows.length === 0) lines.push(`Batch ${o.batchId}: no row needs a person.`)
    else {
      const open = o.rows.filter((r) => r.needsPerson)
      if (!namedRows) lines.push(`Batch ${o.batchId}: ${rowsWord(f, open.length)} need${open.length === 1 ? "s" : ""} a person (${totalsOf(f, open)}).`)
      lines.push(rowsTable(f, o.rows))
      for (const r of o.rows) lines.push(...evidenceLines(f, r, namedRows))
      if (o.decision === undefined) lines.push(...decideHint(o.batchId, o.rows))
    }
  }
  if (o.claimed.length > 0) {
    lines.push(`Line${o.claimed.length === 1 ? "" : "s"} ${formatLineRanges(o.claimed)} ${o.claimed.length === 1 ? "was" : "were"} claimed by a run that stopped: running the file again settles ${o.claimed.length === 1 ? "it" : "them"}.`)
  }
  return lines.join("\n")
}

/** The question before a decision over several rows: the rows, their count and total per currency. */
export const questionText = (f: Format, verb: string, batchId: string, by: string, reason: string, rows: ReadonlyArray<RowEvidence>): string =>
  [
    `${verb} ${rowsWord(f, rows.length)} of batch ${batchId}, decided by ${by} (${reason}):`,
    ...rowsTable(f, rows).split("\n").map((l) => `  ${l}`),
    `  ${rowsWord(f, rows.length)}, ${totalsOf(f, rows)}`
  ].join("\n")

const openJson = (r: OpenRow) => ({ line: r.line, state: r.state, amount_minor: r.amountMinor, currency: r.currency })

/** `--json`: raw values, minor units with their currency, ISO times. */
export const resolveJson = (o: ResolveOutcome, exitCode: number) => ({
  batch_id: o.batchId,
  account_alarm: o.accountAlarm ?? null,
  listing_cleared: o.listingCleared,
  incomplete_days: o.incompleteDays,
  decision: o.decision === undefined ? null : { kind: o.decision.kind.toLowerCase(), lines: o.decision.lines, declined: o.decision.declined },
  applied: o.applied.map((a) => ({ line: a.line, result: a.result, reference: a.reference, detail: appliedText(a) })),
  refused: o.refused.map((r) => ({ line: r.line, message: resolveRefusalText(r.refusal) })),
  rows: o.rows.map((r) => ({
    line: r.line,
    id: r.id,
    token: r.token,
    phone: r.phone,
    amount_minor: r.amountMinor,
    currency: r.currency,
    state: r.state,
    needs_person: r.needsPerson,
    why: r.why,
    since: iso(r.since),
    alarm: r.alarm,
    reference: r.reference,
    carrying: r.carrying.map((p) => ({ reference: p.reference, amount_minor: p.amountMinor, currency: p.currency, status: p.status, day: p.day })),
    possible: r.possible.map((p) => ({ reference: p.reference, amount_minor: p.amountMinor, currency: p.currency, status: p.status, day: p.day, description: p.description })),
    events: r.events.map((e) => ({ at: iso(DateTime.toEpochMillis(e.at)), from: e.fromState, to: e.toState, source: e.source, detail: e.detail }))
  })),
  still_need_person: { count: o.stillOpen.length, rows: o.stillOpen.map(openJson) },
  claimed_lines: o.claimed,
  exit_code: exitCode
})
