/** The report as one self-contained HTML page: inline CSS and SVG, no script, no external asset. */
import { visible } from "../domain/Text.ts"
import { describeAlreadyPaid } from "./AlreadyPaid.ts"
import type { NotPaidGroup, ReportData } from "./ReportData.ts"

const esc = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c)

const COLORS: Readonly<Record<string, string>> = {
  completed: "#2e9d5b",
  failed: "#d64545",
  cancelled: "#e08a3c",
  expired: "#b5773a",
  refunded: "#8e5cc2",
  rejected: "#7a7a7a",
  skipped: "#a0a0a0",
  unknown: "#c23c8a",
  pending: "#3c7fd6",
  processing: "#5a9be0",
  submitted: "#7fb2ea",
  submitting: "#9cc4ef",
  validated: "#c9d6e3",
  already_paid: "#6aa88a"
}

const bars = (items: ReadonlyArray<{ label: string; value: number; color: string; attrs: string }>, shown: (n: number) => string, unit = "") => {
  const max = Math.max(1, ...items.map((i) => i.value))
  const height = items.length * 30 + 10
  const rows = items.map((item, i) => {
    const width = Math.round((item.value / max) * 300)
    const y = i * 30 + 5
    return `<g ${item.attrs}><text x="0" y="${y + 17}" class="lbl">${esc(item.label)}</text>` +
      `<rect x="130" y="${y}" width="${Math.max(width, 1)}" height="22" rx="3" fill="${item.color}"></rect>` +
      `<text x="${138 + width}" y="${y + 17}" class="val">${esc(shown(item.value))}${unit}</text></g>`
  })
  return `<svg class="chart" viewBox="0 0 520 ${height}" width="520" height="${height}" role="img">${rows.join("")}</svg>`
}

const BINS: ReadonlyArray<readonly [string, number]> = [
  ["< 10 s", 10], ["10-30 s", 30], ["30 s-1 min", 60], ["1-5 min", 300], ["5-30 min", 1800], ["30 min-2 h", 7200], ["2-6 h", 21600], ["> 6 h", Infinity]
]

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

const seconds = (s: number) => (s < 120 ? `${s.toFixed(1)} s` : s < 7200 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`)

/** Columns of figures are right-aligned, so that digits line up under each other as on a statement. */
const FIGURES = new Set(["rows", "amount", "completed", "fees", "fees estimated", "sent", "failed", "cancelled", "expired", "paid", "total debited"])

const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>, attrs = "") => {
  const cls = (i: number) => (FIGURES.has(head[i]) ? ` class="n"` : "")
  const body =
    rows.length === 0
      ? `<tr><td colspan="${head.length}" class="none">none</td></tr>`
      : rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join("")}</tr>`).join("")
  return `<table ${attrs}><thead><tr>${head.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join("")}</tr></thead><tbody>${body}</tbody></table>`
}

const CSS = `body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f6f9;color:#1d2733}
header{background:#1d2733;color:#fff;padding:20px 32px}header h1{margin:0 0 4px;font-size:22px}header p{margin:0;opacity:.8}
main{padding:20px 32px;display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:20px}
section{background:#fff;border-radius:8px;padding:16px 20px;box-shadow:0 1px 3px rgba(0,0,0,.08)}section.wide{grid-column:1/-1}
h2{font-size:16px;margin:0 0 12px}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e3e8ee}
th{font-weight:600;color:#4a5a6a;font-size:13px}th.n,td.n{text-align:right;font-variant-numeric:tabular-nums}td.none{color:#8a96a3;font-style:italic}.big{font-size:28px;font-weight:700}
.cards{display:flex;gap:16px;flex-wrap:wrap}.card{background:#f4f6f9;border-radius:6px;padding:10px 16px;min-width:120px}
.card span{display:block;color:#4a5a6a;font-size:13px}.chart .lbl{font-size:13px;fill:#1d2733}.chart .val{font-size:13px;fill:#4a5a6a}
.people{background:#e9edf2;color:#1d2733;padding:8px 32px;margin:0}.paused{background:#fff3cd;color:#6b4e00;padding:10px 32px;margin:0}.retry{background:#e7f0fb;color:#1d3c66;padding:10px 32px;margin:0}`

/** One phone, several names: rows accepted under --allow-shared-phone, phones other batches paid to other names (phones masked). */
const sharedPhones = (data: ReportData): string => {
  const { shared_phones: inFile, shared_phones_history: history } = data.summary
  const f = data.format
  const shown = (count: number, rows: number) => `${f.count(count)}${count > rows ? `, first ${f.count(rows)} shown` : ""}`
  return [
    inFile === undefined
      ? ""
      : `<section class="wide"><h2>One phone, several names in this file, accepted with --allow-shared-phone (${shown(inFile.count, inFile.rows.length)})</h2>${table(
          ["line", "phone", "name", "first line", "first name"],
          inFile.rows.map((r) => [r.line, r.phone, visible(r.name), r.first_line, visible(r.first_name)]),
          `data-table="shared-phones"`
        )}</section>`,
    history === undefined
      ? ""
      : `<section class="wide"><h2>Phones another batch paid to another name (${shown(history.count, history.rows.length)})</h2>${table(
          ["line", "phone", "name", "earlier name", "earlier file", "earlier line", "earlier batch"],
          history.rows.map((r) => [r.line, r.phone, visible(r.name), visible(r.earlier_name), visible(r.earlier_file), r.earlier_line, r.earlier_batch]),
          `data-table="shared-phones-history"`
        )}</section>`
  ].join("")
}

const NOT_PAID_TITLES: Readonly<Record<string, string>> = {
  failed: "Failed rows",
  cancelled: "Cancelled rows",
  expired: "Expired rows",
  refunded: "Refunded rows: paid, then returned",
  unknown: "Unknown rows: may have been paid, a person or the reconciliation decides"
}

/** One status of the rows sent and not paid, counted apart, with whom it was for. */
const notPaidSection = (group: NotPaidGroup, data: ReportData): string => {
  const f = data.format
  const shown = group.total > group.rows.length ? `, first ${f.count(group.rows.length)} shown` : ""
  return `<section class="wide"><h2>${esc(NOT_PAID_TITLES[group.status] ?? group.status)} (${f.count(group.total)}${shown})</h2>${table(
    ["line", "id", "name", "reference", "operator", "amount", "phone", "reason"],
    group.rows.map((r) => [r.line, r.id, visible(r.name), r.reference, r.operator, r.amount, r.phone, r.error]),
    `data-table="${esc(group.status)}" data-total="${group.total}"`
  )}</section>`
}

/** Who approved, submitted and ran the batch; "none recorded" rather than a blank a reader could miss. */
const people = (data: ReportData): string => {
  const p = data.people
  const approved = p.approvedBy === undefined
    ? `<span data-field="approved_by">none recorded</span>`
    : `<span data-field="approved_by">${esc(p.approvedBy)}</span>${p.approvedAt === undefined ? "" : ` at <span data-field="approved_at">${esc(data.format.time(p.approvedAt))}</span>`}`
  return `<p class="people">approved by ${approved} &middot; submitted by <span data-field="submitted_by">${esc(p.submittedBy ?? "none recorded")}</span>${
    p.runBy === undefined ? "" : ` &middot; run by <span data-field="run_by">${esc(p.runBy)}</span>`
  }</p>`
}

/** Rows paid, but not by this batch (AlreadyPaid.ts): apart, and out of every other figure of the page. */
const alreadyPaid = (data: ReportData): string => {
  const a = data.summary.already_paid
  if (a === undefined) return ""
  const f = data.format
  return `<section class="wide"><h2>Already paid, not by this batch (${f.count(a.rows)})</h2><p data-field="already_paid">${esc(describeAlreadyPaid(a, f.decimal))}. They are not in this report's counts, totals or total debited: another batch paid them.</p>${table(
    ["currency", "rows", "amount", "fees"],
    Object.entries(a.totals).map(([c, t]) => [c, f.count(t.rows), `${f.decimal(t.amount)} ${c}`, `${f.decimal(t.fees)} ${c}`]),
    `data-table="already-paid"`
  )}</section>`
}

/** The link to the rows not paid as a CSV in the input's columns, to correct and pay again. */
const unpaidCsvSection = (data: ReportData): string => {
  const csv = data.unpaidCsv
  if (csv === undefined) return ""
  return `<section class="wide"><h2>Ready to fix: the failed, cancelled and expired rows as a CSV (${data.format.count(csv.rows)})</h2><p><a data-link="unpaid-csv" href="${esc(encodeURIComponent(csv.file))}">${esc(csv.file)}</a>, beside this report, in the columns of the input file. Correct the phone, operator or name, then pay them again with <code>payouts retry ${esc(data.summary.batch_id)} --fix ${esc(csv.file)}</code>. Rows whose outcome is unknown, under alarm or resent once are never in it (they may have been paid: <code>payouts resolve</code>); rejected and skipped rows, listed above, are paid by a new file.</p></section>`
}

export const renderReport = (data: ReportData): string => {
  const s = data.summary
  const f = data.format
  const money = (minor: number, currency: string) => `${f.minor(minor, currency)} ${currency}`
  const counts = Object.entries(s.counts).filter(([, n]) => n > 0).sort(([, a], [, b]) => b - a)
  const total = s.total_rows ?? counts.reduce((a, [, n]) => a + n, 0)
  const sorted = [...data.timesToFinal].sort((a, b) => a - b)
  const histogram = BINS.map(([label, upper], i) => ({
    label,
    value: sorted.filter((t) => t < upper && (i === 0 || t >= BINS[i - 1][1])).length,
    color: "#3c7fd6",
    attrs: `data-bin="${esc(label)}"`
  }))
  const cards = [["rows", total], ...counts.slice(0, 5)].map(
    ([label, n]) => `<div class="card" data-card="${esc(label)}"><span>${esc(label)}</span><b class="big">${esc(f.count(Number(n)))}</b></div>`
  )
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Payout report ${esc(s.batch_id)}</title><style>${CSS}</style></head><body>
<header><h1>Payout report: ${esc(s.file.split(/[\\/]/).pop() ?? s.file)}</h1>
<p>batch <span data-field="batch_id">${esc(s.batch_id)}</span> &middot; <span data-field="outcome">${esc(s.outcome)}</span> &middot; <span data-field="started_at">${esc(s.started_at === undefined ? "" : f.time(s.started_at))}</span> to <span data-field="finished_at">${esc(s.finished_at === undefined ? "" : f.time(s.finished_at))}</span> &middot; exit ${esc(s.exit_code)}</p></header>
${people(data)}
${s.parent === undefined ? "" : `<p class="retry" data-field="parent">Retry of batch ${esc(s.parent)}: its failed, cancelled and expired rows paid again</p>`}
${s.paused === undefined ? "" : `<p class="paused" data-field="paused">Paused: ${esc(s.paused)}</p>`}
<main>
<section class="wide"><div class="cards">${cards.join("")}</div></section>
${alreadyPaid(data)}
<section><h2>Total debited per currency</h2>${table(
    ["currency", "paid", "fees", "total debited"],
    data.debited.map((d) => [d.currency, money(d.paidMinor, d.currency), money(d.feesMinor, d.currency), money(d.paidMinor + d.feesMinor, d.currency)]),
    `data-table="debited"`
  )}</section>
<section><h2>Totals per currency (rows sent)</h2>${table(
    ["currency", "rows", "amount", "completed", "fees", "fees estimated"],
    Object.entries(s.totals).map(([c, t]) => [c, f.count(t.rows), f.decimal(t.amount), f.decimal(t.completed_amount), f.decimal(t.fees), f.decimal(data.feesEstimated[c] ?? "")]),
    `data-table="totals"`
  )}</section>
<section><h2>Status breakdown</h2>${bars(counts.map(([status, n]) => ({ label: status, value: n, color: COLORS[status] ?? "#888", attrs: `data-status="${esc(status)}" data-count="${n}"` })), f.count)}</section>
<section><h2>Success rate per operator</h2>${bars(
    data.operators.map((o) => {
      const settled = o.completed + o.failed + o.cancelled + o.expired
      const rate = settled === 0 ? 0 : Math.round((o.completed / settled) * 100)
      return { label: o.operator, value: rate, color: rate >= 90 ? "#2e9d5b" : rate >= 50 ? "#e0b03c" : "#d64545", attrs: `data-operator="${esc(o.operator)}" data-rate="${rate}"` }
    }),
    String,
    "%"
  )}${table(
    ["operator", "sent", "completed", "failed", "cancelled", "expired"],
    data.operators.map((o) => [o.operator, f.count(o.sent), f.count(o.completed), f.count(o.failed), f.count(o.cancelled), f.count(o.expired)]),
    `data-table="operators"`
  )}</section>
<section><h2>Time to final status</h2><p>median <b data-field="median">${seconds(quantile(sorted, 0.5))}</b> &middot; 90th percentile <b>${seconds(quantile(sorted, 0.9))}</b> &middot; ${f.count(sorted.length)} rows</p>${bars(histogram, f.count)}</section>
<section class="wide"><h2>To pay again: failed, cancelled and expired rows, per currency</h2>${table(
    ["currency", "rows", "amount"],
    Object.entries(data.repay).sort(([a], [b]) => a.localeCompare(b)).map(([c, r]) => [c, f.count(r.rows), `${f.minor(r.minor, c)} ${c}`]),
    `data-table="repay"`
  )}</section>
${data.notPaid.filter((g) => g.status === "failed" || g.total > 0).map((g) => notPaidSection(g, data)).join("\n")}
<section class="wide"><h2>Rows not paid: rejected or skipped (${f.count(data.unpaidTotal)}${data.unpaidTotal > data.unpaid.length ? `, first ${f.count(data.unpaid.length)} shown` : ""})</h2>${table(
    ["line", "id", "name", "operator", "amount", "status", "reason"],
    data.unpaid.map((r) => [r.line, r.id, visible(r.name), r.operator, r.amount, r.status, r.error]),
    `data-table="unpaid"`
  )}</section>
${unpaidCsvSection(data)}
<section class="wide"><h2>Stuck rows (${f.count(s.stuck.length)})</h2>${table(
    ["line", "id", "operator", "status", "reference", "since"],
    s.stuck.map((r) => [r.line, r.id ?? "", r.operator, r.status, r.reference ?? "", f.time(r.since)]),
    `data-table="stuck"`
  )}</section>
${sharedPhones(data)}
</main></body></html>
`
}
