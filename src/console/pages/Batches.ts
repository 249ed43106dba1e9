/**
 * The Batches page (DESIGN 13): every batch of the account with its state, counts, amounts and
 * approver, and how far a running one has got. Its table is refreshed in place every few seconds
 * (console.js fetches /batches/live), so a batch run by `watch` or `run` shows as it goes.
 */
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { type Format, userFormat } from "../../output/Format.ts"
import { describeHalt } from "../../run/Safeguards.ts"
import { FINAL_ROW_STATES, PENDING_STATES } from "../../store/RowState.ts"
import { AccountRecords } from "../../store/Sql/Account.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import type { BatchSummary, CurrencyTotal } from "../../store/Driver/Batches.ts"
import { ConsoleAccount, escapeHtml, page } from "../Contract.ts"

const e = escapeHtml

/** Batches listed at once (`payouts batches` lists them all). */
const SHOWN_BATCHES = 100

type Counts = BatchSummary["counts"]
const sum = (c: Counts, states: ReadonlyArray<keyof Counts>) => states.reduce((n, s) => n + c[s], 0)

/** The rows that have reached a state they will keep: what "done" counts in a batch's progress. */
export const finalRows = (c: Counts) => sum(c, FINAL_ROW_STATES)

export const progress = (f: Format, label: string, c: Counts, total: number) =>
  `<progress max="${total}" value="${finalRows(c)}" aria-label="${e(label)}">${finalRows(c)} of ${total}</progress> <span>${e(f.count(finalRows(c)))} of ${e(f.count(total))} final</span>`

export const amountsText = (f: Format, totals: ReadonlyArray<CurrencyTotal>) =>
  totals.length === 0 ? "-" : totals.map((t) => `${f.minor(t.amountMinor, t.currency)} ${t.currency}`).join(", ")

const row = (f: Format, b: BatchSummary, totals: ReadonlyArray<CurrencyTotal>) => {
  const c = b.counts
  const id = e(b.batchId)
  return `<tr><th scope="row"><a href="/batches/${id}">${e(b.fileName)}</a><br><small class="id">${id}</small></th>
<td><span class="state state-${e(b.state)}">${e(b.state)}</span>${b.pauseReason === null ? "" : `<br><small>${e(b.pauseReason)}</small>`}</td>
<td>${progress(f, `${b.fileName} progress`, c, b.total)}</td>
<td class="num">${f.count(b.total)}</td><td class="num">${f.count(c.completed)}</td><td class="num">${f.count(c.failed + c.cancelled + c.expired + c.refunded)}</td>
<td class="num">${f.count(sum(c, PENDING_STATES))}</td><td class="num">${f.count(c.unknown)}</td><td class="num">${f.count(c.validated)}</td>
<td>${e(amountsText(f, totals))}</td><td>${e(b.approvedBy ?? "-")}</td><td>${e(f.time(b.createdAt))}</td></tr>`
}

/** The part of the page that changes while batches run: the halt, if any, and the table. */
export const batchesLive = Effect.gen(function* () {
  const { accountId } = yield* ConsoleAccount
  const batches = yield* Batches
  const f = yield* userFormat
  const halt = yield* (yield* AccountRecords).activeHalt(accountId)
  const halted = Option.match(halt, {
    onNone: () => "",
    onSome: (h) => `<p role="alert" class="refused">HALTED: ${e(describeHalt(h))}. No new payout is sent (see Account).</p>`
  })
  const all = [...(yield* batches.listBatches(accountId))].sort((a, b) => Number(b.createdAt.epochMillis) - Number(a.createdAt.epochMillis))
  if (all.length === 0) return `${halted}<p>No batches in this account's state store yet.</p>`
  // Refreshed every 2 s with a totals query per batch: the newest are what a person watches.
  const shown = all.slice(0, SHOWN_BATCHES)
  const rows = yield* Effect.forEach(shown, (b) => Effect.map(batches.currencyTotals(accountId, b.batchId), (t) => row(f, b, t)))
  return `${halted}<div class="scroll" tabindex="0" role="region" aria-label="Batches table"><table><caption>${all.length > shown.length ? `The newest ${f.count(shown.length)} of ${f.count(all.length)} batches` : `${f.count(shown.length)} batch${shown.length === 1 ? "" : "es"}, newest first`}</caption>
<thead><tr><th scope="col">File and batch</th><th scope="col">State</th><th scope="col">Progress</th><th scope="col">Rows</th><th scope="col">Completed</th><th scope="col">Not paid</th><th scope="col">Pending</th><th scope="col">Unknown</th><th scope="col">Waiting</th><th scope="col">Amount sent</th><th scope="col">Approved by</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.join("\n")}</tbody></table></div>`
})

const listPage = Effect.flatMap(batchesLive, (live) => page("Batches", `<div data-live="/batches/live">${live}</div>`))

const fragment = (html: string) => HttpServerResponse.text(html, { contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })

export const batchesRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/batches", listPage),
  HttpRouter.get("/batches/live", Effect.map(batchesLive, fragment))
)
