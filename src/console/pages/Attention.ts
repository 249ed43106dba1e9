/**
 * The Attention page (DESIGN 7 and 13): every row of the account that needs a person, with the
 * evidence `payouts resolve` shows, and its decisions (Adopt, Resend, Abandon, Acknowledge) with a
 * reason. A decision is `payouts resolve BATCH --line N` itself (run/Resolve.ts): under the batch's
 * lease, after a sync, checked there and refused with the words the CLI prints (given by JobNotes);
 * recorded in the row's events by the signed-in person with why.
 */
import { type HttpServerError, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Data, DateTime, Effect, Option, type ParseResult, Schema } from "effect"
import { BatchId } from "../../domain/Ids.ts"
import { type Format, userFormat } from "../../output/Format.ts"
import { JobNotes } from "../../jobs/JobNotes.ts"
import { type AttentionBatch, attentionOf } from "../../run/Attention.ts"
import { resolve } from "../../run/Resolve.ts"
import type { Decision } from "../../run/ResolveDecision.ts"
import type { ResolveError } from "../../run/ResolveRefusal.ts"
import type { RowEvidence } from "../../run/ResolveEvidence.ts"
import type { StoreError } from "../../store/Model.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import { ConsoleAccount, csrfField, escapeHtml, type Forbidden, may, page, requirePermission, SignedIn } from "../Contract.ts"

const e = escapeHtml

/** A decision's outcome, shown above the list: done (a status) or refused (an alert, answered 409). */
interface Notice {
  readonly refused: boolean
  readonly text: string
}

/** What the console itself refuses before the decision is tried (the CLI's usage errors). */
class NotDecided extends Data.TaggedError("NotDecided")<{ readonly message: string }> {}

const amountOf = (f: Format, row: { readonly amountMinor: number | null; readonly currency: string }) =>
  row.amountMinor === null ? `- ${row.currency}` : `${f.minor(row.amountMinor, row.currency)} ${row.currency}`

const payoutText = (f: Format, p: RowEvidence["carrying"][number]) => `${p.reference} (${f.minor(p.amountMinor, p.currency)} ${p.currency}, ${p.status}, ${p.day})`

const list = (label: string, items: ReadonlyArray<string>, none: string) =>
  items.length === 0 ? `<p>${e(label)}: ${e(none)}</p>` : `<p>${e(label)}:</p><ul>${items.map((i) => `<li>${e(i)}</li>`).join("")}</ul>`

/** One row's evidence as `payouts resolve BATCH --line N` prints it: the row, why, the listed payouts, its last events. */
const evidence = (f: Format, r: RowEvidence) => {
  const facts: ReadonlyArray<readonly [string, string]> = [
    ["Id", r.id ?? "-"],
    ["Phone", r.phone],
    ["Amount", amountOf(f, r)],
    ["State", r.state],
    ["Since", f.time(r.since)],
    ["Why", r.why],
    ["Token", `[${r.token}]`],
    ["Reference", r.reference ?? "-"]
  ]
  const dl = `<dl>${facts.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join("")}</dl>`
  const carrying = list("Listed payouts carrying its token", r.carrying.map((p) => payoutText(f, p)), "none")
  const possible = r.possible.length === 0 ? "" : list("Same amount and currency without a readable token (check by hand)", r.possible.map((p) => `${p.reference} "${p.description ?? ""}"`), "none")
  const events = list(
    "Events",
    r.events.slice(-6).map((ev) => `${f.time(DateTime.toEpochMillis(ev.at))} ${ev.fromState ?? "-"} -> ${ev.toState} (${ev.source})${ev.detail === null ? "" : `: ${ev.detail}`}`),
    "none"
  )
  return `${dl}${carrying}${possible}${events}`
}

/** The decisions that fit the row (the others are refused all the same if posted), one form, one reason. */
const decisionForm = (batchId: string, r: RowEvidence, csrf: string) => {
  const key = `${e(batchId)}-${r.line}`
  const unknown = r.state === "unknown"
  const buttons = [
    ...(unknown ? [["adopt", "Adopt"], ["resend", "Resend"], ["abandon", "Abandon"]] : []),
    ...(r.alarm !== null ? [["acknowledge", "Acknowledge"]] : [])
  ].map(([value, label]) => `<button type="submit" name="decision" value="${value}">${label}</button>`).join(" ")
  const reference = unknown
    ? `<p><label for="reference-${key}">Reference to adopt</label> <input id="reference-${key}" name="reference" type="text" autocomplete="off" maxlength="100"></p>`
    : ""
  return `<form method="post" action="/attention/${e(batchId)}/${r.line}">${csrfField(csrf)}
<p><label for="reason-${key}">Reason</label> <input id="reason-${key}" name="reason" type="text" required maxlength="500" autocomplete="off"></p>${reference}<p>${buttons}</p></form>`
}

/** `payouts resolve BATCH --listing-ok`: a person has checked the service's listing by hand. */
const listingForm = (batchId: string, csrf: string) =>
  `<form method="post" action="/attention/${e(batchId)}/listing-ok">${csrfField(csrf)}
<p><label for="listing-reason-${e(batchId)}">Reason</label> <input id="listing-reason-${e(batchId)}" name="reason" type="text" required maxlength="500" autocomplete="off">
<button type="submit">Listing checked</button></p></form>`

const batchSection = (f: Format, who: SignedIn["Type"], item: AttentionBatch, accountAlarm: boolean) => {
  const id = e(item.batch.batchId)
  const rows = item.rows
    .map((r) => `<article aria-labelledby="row-${id}-${r.line}"><h3 id="row-${id}-${r.line}">Line ${r.line}: ${e(amountOf(f, r))}, ${e(r.state)}</h3>${evidence(f, r)}${may(who.role, "resolve") ? decisionForm(item.batch.batchId, r, who.csrf) : ""}</article>`)
    .join("\n")
  const count = `${f.count(item.rows.length)} row${item.rows.length === 1 ? "" : "s"} need${item.rows.length === 1 ? "s" : ""} a person`
  const listing = accountAlarm && may(who.role, "resolve") ? listingForm(item.batch.batchId, who.csrf) : ""
  return `<section aria-labelledby="batch-${id}"><h2 id="batch-${id}">${e(item.batch.fileName)} <small>batch ${id}</small></h2><p>${e(count)}.</p>${listing}${rows}</section>`
}

const listPage = Effect.fn("Console.attentionPage")(function* (notice: Option.Option<Notice>) {
  const who = yield* SignedIn
  const { accountId } = yield* ConsoleAccount
  const f = yield* userFormat
  const attention = yield* attentionOf(accountId)
  const shown = Option.match(notice, {
    onNone: () => "",
    onSome: (n) => `<p role="${n.refused ? "alert" : "status"}" class="${n.refused ? "refused" : "done"}">${e(n.text)}</p>`
  })
  const alarm = attention.accountAlarm === undefined
    ? ""
    : `<p role="alert">Account alarm: ${e(attention.accountAlarm)}. No row is resent while it holds; after checking the listing by hand, say so with a batch's Listing checked (payouts resolve BATCH --listing-ok).</p>`
  const body = attention.batches.length === 0 ? "<p>No row needs a person.</p>" : attention.batches.map((b) => batchSection(f, who, b, attention.accountAlarm !== undefined)).join("\n")
  const response = yield* page("Attention", `${shown}${alarm}${body}`)
  return Option.isSome(notice) && notice.value.refused ? HttpServerResponse.setStatus(response, 409) : response
})

const RowParams = Schema.Struct({ batch: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{8,64}$/)), line: Schema.NumberFromString.pipe(Schema.int(), Schema.positive()) })
const DecisionForm = Schema.Struct({
  decision: Schema.Literal("adopt", "resend", "abandon", "acknowledge"),
  reason: Schema.optionalWith(Schema.Trim, { default: () => "" }),
  reference: Schema.optionalWith(Schema.Trim, { default: () => "" })
})

const decisionOf = (form: typeof DecisionForm.Type): Effect.Effect<Exclude<Decision, { _tag: "Show" }>, NotDecided> => {
  switch (form.decision) {
    case "adopt":
      return form.reference === "" ? Effect.fail(new NotDecided({ message: "Adopt needs the reference of the payout to adopt" })) : Effect.succeed({ _tag: "Adopt", reference: form.reference })
    case "resend":
      return Effect.succeed({ _tag: "Resend" })
    case "abandon":
      return Effect.succeed({ _tag: "Abandon" })
    case "acknowledge":
      return Effect.succeed({ _tag: "Acknowledge" })
  }
}

/** One decision for one row: `payouts resolve BATCH --line N --by NAME --reason TEXT --DECISION`, by the signed-in person. */
const decideRow = Effect.fn("Console.resolveRow")(function* () {
  const who = yield* requirePermission("resolve")
  const { accountId, urls } = yield* ConsoleAccount
  const [batches, notes] = yield* Effect.all([Batches, JobNotes])
  const { batch, line } = yield* HttpRouter.schemaPathParams(RowParams)
  const form = yield* HttpServerRequest.schemaBodyUrlParams(DecisionForm)
  // The CLI's own refusals, in the console's words: who is the signed-in person; why must be given.
  if (form.reason === "") return yield* new NotDecided({ message: "a decision needs a reason: why is recorded for whoever looks next" })
  const decision = yield* decisionOf(form)
  const batchId = BatchId.make(batch)
  if (Option.isNone(yield* batches.getBatch(accountId, batchId))) return yield* new NotDecided({ message: `no batch ${batch} in this account's state store` })
  const outcome = yield* resolve({ accountId, batchId, selection: { _tag: "Line", line }, by: who.name, reason: form.reason, decision, listingOk: false, urls, confirm: undefined })
  const done = outcome.applied.map((a) => `Done: ${notes.resolveApplied(a)} (by ${who.name}: ${form.reason}).`)
  const refused = outcome.refused.map((r) => `Not done: ${notes.resolveRefusal(r.refusal)}`)
  return { refused: refused.length > 0, text: [...done, ...refused].join(" ") } satisfies Notice
})

const BatchParam = Schema.Struct({ batch: RowParams.fields.batch })
const ReasonForm = Schema.Struct({ reason: DecisionForm.fields.reason })

/** `payouts resolve BATCH --listing-ok --by NAME --reason TEXT`: clears the account alarm under the batch's lease, after a sync. */
const listingOk = Effect.fn("Console.listingOk")(function* () {
  const who = yield* requirePermission("resolve")
  const { accountId, urls } = yield* ConsoleAccount
  const batches = yield* Batches
  const { batch } = yield* HttpRouter.schemaPathParams(BatchParam)
  const { reason } = yield* HttpServerRequest.schemaBodyUrlParams(ReasonForm)
  if (reason === "") return yield* new NotDecided({ message: "a decision needs a reason: why is recorded for whoever looks next" })
  const batchId = BatchId.make(batch)
  if (Option.isNone(yield* batches.getBatch(accountId, batchId))) return yield* new NotDecided({ message: `no batch ${batch} in this account's state store` })
  const outcome = yield* resolve({ accountId, batchId, selection: { _tag: "NeedingPerson" }, by: who.name, reason, decision: { _tag: "Show" }, listingOk: true, urls, confirm: undefined })
  return { refused: false, text: `Account alarm cleared (${outcome.listingCleared}) by ${who.name}: ${reason}.` } satisfies Notice
})

/** A decision's refusal is shown on the page as the CLI prints it (409); anything else is the server's to answer. */
const answered = <R>(decision: Effect.Effect<Notice, NotDecided | ResolveError | ParseResult.ParseError | StoreError | Forbidden | HttpServerError.RequestError, R>) =>
  decision.pipe(
    Effect.catchTags({
      NotDecided: (error) => Effect.succeed<Notice>({ refused: true, text: `Not done: ${error.message}` }),
      ResolveError: (error) => Effect.map(JobNotes, (notes): Notice => ({ refused: true, text: `Not done: ${notes.resolveRefusal(error.refusal)}` })),
      ParseError: () => Effect.succeed<Notice>({ refused: true, text: "Not done: the form or the row could not be read." })
    }),
    Effect.flatMap((notice) => listPage(Option.some(notice)))
  )

export const attentionRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/attention", listPage(Option.none())),
  HttpRouter.post("/attention/:batch/listing-ok", answered(listingOk())),
  HttpRouter.post("/attention/:batch/:line", answered(decideRow()))
)
