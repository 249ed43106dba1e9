/**
 * One batch's page (DESIGN 13): its summary (counts and totals as the summary file has them), its
 * rows filtered by state and searched by id, name or masked phone, and its events, newest first. The
 * summary part is refreshed in place while the batch runs.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Chunk, DateTime, Effect, Option, Schema, Stream } from "effect"
import { BatchId } from "../../domain/Ids.ts"
import { maskPhone } from "../../domain/Phone.ts"
import { type Format, userFormat } from "../../output/Format.ts"
import { totalsByCurrency } from "../../output/Outputs.ts"
import { ROW_STATES, RowState } from "../../store/RowState.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import { Rows } from "../../store/Sql/Reads.ts"
import type { Row } from "../../store/Model.ts"
import { ConsoleAccount, escapeHtml, page } from "../Contract.ts"
import { outputLinks } from "./BatchFiles.ts"
import { progress } from "./Batches.ts"

const e = escapeHtml

/** Rows shown at once: a page a browser and a screen reader take in; the filter finds the rest. */
const SHOWN_ROWS = 500
const SHOWN_EVENTS = 200

const Params = Schema.Struct({ id: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{8,64}$/)) })
const Filter = Schema.Struct({
  state: Schema.optionalWith(Schema.Union(RowState, Schema.Literal("")), { default: () => "" as const }),
  q: Schema.optionalWith(Schema.Trim.pipe(Schema.maxLength(100)), { default: () => "" })
})

/** A row matches a search by its id, its name or its phone as shown (masked): never the full number. */
const matches = (q: string) => {
  const needle = q.toLowerCase()
  return (r: Row) => needle === "" || (r.rowId ?? "").toLowerCase().includes(needle) || r.name.toLowerCase().includes(needle) || maskPhone(r.phone).includes(needle)
}

const summaryPart = (accountId: ConsoleAccount["Type"]["accountId"], batchId: BatchId) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const f = yield* userFormat
    const found = yield* batches.getBatch(accountId, batchId)
    if (Option.isNone(found)) return Option.none<string>()
    const b = found.value
    const counts = yield* batches.countByState(accountId, batchId)
    const total = ROW_STATES.reduce((n, s) => n + counts[s], 0)
    const totals = yield* totalsByCurrency(accountId, batchId)
    const facts: ReadonlyArray<readonly [string, string]> = [
      ["State", b.state + (b.pauseReason === null ? "" : ` (${b.pauseReason})`)],
      ["Created", f.time(b.createdAt)],
      ["Approved by", b.approvedBy === null ? "-" : `${b.approvedBy}${b.approvedAt === null ? "" : ` at ${f.time(b.approvedAt)}`}`],
      ["Rows", f.count(total)]
    ]
    const states = ROW_STATES.filter((s) => counts[s] > 0).map((s) => `<li>${e(s)}: ${f.count(counts[s])}</li>`).join("")
    const money = Object.entries(totals)
      .map(([c, t]) => `<tr><th scope="row">${e(c)}</th><td class="num">${f.count(t.rows)}</td><td class="num">${e(f.decimal(t.amount))}</td><td class="num">${e(f.decimal(t.completed_amount))}</td><td class="num">${e(f.decimal(t.fees))}</td></tr>`)
      .join("")
    return Option.some(`<dl>${facts.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join("")}<dt>Progress</dt><dd>${progress(f, "Batch progress", counts, total)}</dd></dl>
<ul class="counts" aria-label="Rows by state">${states}</ul>
${money === "" ? "<p>Nothing sent yet.</p>" : `<table><caption>Totals of the rows sent</caption><thead><tr><th scope="col">Currency</th><th scope="col">Rows</th><th scope="col">Amount</th><th scope="col">Completed</th><th scope="col">Fees</th></tr></thead><tbody>${money}</tbody></table>`}`)
  })

const rowsTable = (f: Format, rows: ReadonlyArray<Row>, matched: number) => {
  if (matched === 0) return "<p>No row matches.</p>"
  const body = rows
    .map((r) => {
      const amount = r.amountMinor === null ? "-" : `${f.minor(r.amountMinor, r.currency)} ${r.currency}`
      return `<tr><td class="num">${r.line}</td><td>${e(r.rowId ?? "-")}</td><td>${e(r.name)}</td><td>${e(maskPhone(r.phone))}</td><td class="num">${e(amount)}</td><td>${e(r.state)}</td><td>${e(r.reference ?? "-")}</td><td>${e(r.alarm ?? r.error ?? "")}</td></tr>`
    })
    .join("")
  const caption = matched > rows.length ? `The first ${f.count(rows.length)} of ${f.count(matched)} matching rows (phones masked)` : `${f.count(matched)} matching row${matched === 1 ? "" : "s"} (phones masked)`
  return `<div class="scroll" tabindex="0" role="region" aria-label="Rows table"><table><caption>${e(caption)}</caption><thead><tr><th scope="col">Line</th><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Phone</th><th scope="col">Amount</th><th scope="col">State</th><th scope="col">Reference</th><th scope="col">Note</th></tr></thead><tbody>${body}</tbody></table></div>`
}

const filterForm = (id: string, filter: typeof Filter.Type) => {
  const options = ["", ...ROW_STATES].map((s) => `<option value="${s}"${s === filter.state ? " selected" : ""}>${s === "" ? "every state" : s}</option>`).join("")
  return `<form method="get" action="/batches/${e(id)}" class="filter" role="search" aria-label="Rows">
<label for="state">State</label> <select id="state" name="state">${options}</select>
<label for="q">Search id, name or phone</label> <input id="q" name="q" type="search" value="${e(filter.q)}" maxlength="100">
<button type="submit">Show rows</button></form>`
}

const batchPage = Effect.gen(function* () {
  const { id } = yield* HttpRouter.schemaPathParams(Params)
  const filter = yield* HttpServerRequest.schemaSearchParams(Filter).pipe(Effect.orElseSucceed(() => ({ state: "" as const, q: "" })))
  const { accountId } = yield* ConsoleAccount
  const batchId = BatchId.make(id)
  const rows = yield* Rows
  const summary = yield* summaryPart(accountId, batchId)
  if (Option.isNone(summary)) return HttpServerResponse.setStatus(yield* page("Batch not found", `<p>No batch ${e(id)} in this account's state store. <a href="/batches">All batches</a></p>`), 404)
  const f = yield* userFormat
  const all = Chunk.toReadonlyArray(yield* Stream.runCollect(rows.streamRows(accountId, batchId)))
  const found = all.filter((r) => (filter.state === "" || r.state === filter.state) && matches(filter.q)(r))
  const lineOf = new Map(all.map((r) => [r.idx, r.line]))
  const events = [...(yield* rows.events(accountId, batchId))].reverse().slice(0, SHOWN_EVENTS)
  const eventItems = events
    .map((ev) => `<li><time datetime="${DateTime.formatIso(ev.at)}">${e(f.time(ev.at))}</time> line ${lineOf.get(ev.idx) ?? "?"}: ${e(ev.fromState ?? "-")} → ${e(ev.toState)} (${e(ev.source)})${ev.detail === null ? "" : `: ${e(ev.detail)}`}</li>`)
    .join("")
  const fileName = (yield* (yield* Batches).getBatch(accountId, batchId)).pipe(Option.map((b) => b.fileName), Option.getOrElse(() => id))
  return yield* page(
    `Batch ${fileName}`,
    `<p><a href="/batches">All batches</a> · batch <span class="id">${e(id)}</span></p>
<section aria-labelledby="summary"><h2 id="summary">Summary</h2><div data-live="/batches/${e(id)}/live">${summary.value}</div>${yield* outputLinks(id)}</section>
<section aria-labelledby="rows"><h2 id="rows">Rows</h2>${filterForm(id, filter)}${rowsTable(f, found.slice(0, SHOWN_ROWS), found.length)}</section>
<section aria-labelledby="events"><h2 id="events">Events</h2>${eventItems === "" ? "<p>No events yet.</p>" : `<ol reversed class="events">${eventItems}</ol>`}</section>`
  )
})

const livePart = Effect.gen(function* () {
  const { id } = yield* HttpRouter.schemaPathParams(Params)
  const { accountId } = yield* ConsoleAccount
  const summary = yield* summaryPart(accountId, BatchId.make(id))
  return HttpServerResponse.text(Option.getOrElse(summary, () => ""), { contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })
})

export const batchRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/batches/:id", batchPage),
  HttpRouter.get("/batches/:id/live", livePart)
)
