/**
 * The Approvals page (DESIGN 13): the batches waiting in the job folder's awaiting-approval/ with
 * what `payouts approve` binds (totals per currency, fee estimates, rows), their first rows and the
 * warnings their request records; Approve and Reject with a reason. A decision is the CLI's own
 * (jobs/Approval.ts), with the signed-in person as the approver, four eyes and `--approvers` held as
 * the watcher that will pay holds them.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { ApprovalError, approve, awaitingBatches, refusalFor, reject } from "../../jobs/Approval.ts"
import { JobNotes, Refusal } from "../../jobs/JobNotes.ts"
import { previewRows, type PreviewRow } from "../../jobs/ApprovalPreview.ts"
import type { ApprovalFile } from "../../output/ApprovalFile.ts"
import { type Format, userFormat } from "../../output/Format.ts"
import { csrfField, escapeHtml, may, page, requirePermission, SignedIn } from "../Contract.ts"
import { ConsoleSettings } from "../Settings.ts"

/** Rows shown of each batch: enough to recognise the file; the totals cover the rest. */
const PREVIEW_ROWS = 10

/** A decision's outcome, shown above the list: done (a status) or refused (an alert, with its HTTP status). */
interface Notice {
  readonly refused: boolean
  readonly text: string
}

const e = escapeHtml

const rowsWord = (f: Format, n: number) => `${f.count(n)} row${n === 1 ? "" : "s"}`

const totalsTable = (f: Format, a: ApprovalFile) => {
  const rows = Object.entries(a.currencies)
    .map(([c, t]) => `<tr><th scope="row">${e(c)}</th><td>${e(f.count(t.rows))}</td><td>${e(f.decimal(t.amount))}</td><td>${e(f.decimal(t.fee_estimate))}</td><td>${e(f.decimal(t.total))}</td></tr>`)
    .join("")
  return `<table><caption>Totals per currency</caption><thead><tr><th scope="col">Currency</th><th scope="col">Rows</th><th scope="col">Amount</th><th scope="col">Est. fees</th><th scope="col">Total debited</th></tr></thead><tbody>${rows}</tbody></table>`
}

const previewTable = (f: Format, rows: ReadonlyArray<PreviewRow>, total: number) => {
  if (rows.length === 0) return "<p>The file's rows could not be read for a preview.</p>"
  const body = rows
    .map((r) => {
      const amount = r.amountMinor === undefined ? "-" : `${f.minor(r.amountMinor, r.currency)} ${r.currency}`
      return `<tr><td>${r.line}</td><td>${e(r.id ?? "-")}</td><td>${e(r.name)}</td><td>${e(r.phone)}</td><td>${e(r.operator)}</td><td>${e(amount)}</td><td>${e(r.problems.join("; ") || "-")}</td></tr>`
    })
    .join("")
  const caption = rows.length < total ? `The first ${f.count(rows.length)} of ${rowsWord(f, total)} (phones masked)` : `${total === 1 ? "The only row" : `All ${rowsWord(f, total)}`} (phones masked)`
  return `<table><caption>${e(caption)}</caption><thead><tr><th scope="col">Line</th><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Phone</th><th scope="col">Operator</th><th scope="col">Amount</th><th scope="col">Problems</th></tr></thead><tbody>${body}</tbody></table>`
}

/** What the request says a person must read first: an edit found, phones another batch paid to other names, the preflight. */
const warningsOf = (a: ApprovalFile): ReadonlyArray<string> => [
  ...(a.note === undefined ? [] : [a.note]),
  ...(a.supersedes === undefined ? [] : [`This batch replaces batch ${a.supersedes} (the same file, edited).`]),
  ...(a.shared_phones_history === undefined || a.shared_phones_history.count === 0
    ? []
    : [
      `${a.shared_phones_history.count} row(s) pay a phone another batch paid to another name (a spreadsheet may have lost digits): check before approving.`,
      ...a.shared_phones_history.rows.map((r) => `line ${r.line}: ${r.phone} to ${r.name} here; to ${r.earlier_name} in ${r.earlier_file} (batch ${r.earlier_batch}) line ${r.earlier_line}`)
    ]),
  ...(a.preflight === undefined || a.preflight === "" ? [] : [`Preflight: ${a.preflight}`])
]

const policyText = (a: ApprovalFile) =>
  [
    a.four_eyes === true ? "Four eyes: whoever submitted the batch cannot approve it." : undefined,
    a.approvers === undefined || a.approvers.length === 0 ? undefined : `Approvers: ${a.approvers.join(", ")}.`
  ].filter((t) => t !== undefined).join(" ")

const decisionForm = (a: ApprovalFile, csrf: string, refusal: string | undefined) => {
  const id = e(a.batch_id)
  const warn = refusal === undefined ? "" : `<p class="warning" id="refusal-${id}">You may not approve this batch: ${e(refusal)}</p>`
  return `${warn}<form method="post" action="/approvals/${id}/reject">${csrfField(csrf)}
<label for="reason-${id}">Reason</label> <input id="reason-${id}" name="reason" type="text" required maxlength="500" autocomplete="off">
<button type="submit" formaction="/approvals/${id}/approve">Approve</button> <button type="submit">Reject</button></form>`
}

const batchSection = (f: Format, who: SignedIn["Type"], policy: ConsoleSettings["Type"]["policy"], item: { csv: string; approval: ApprovalFile }) =>
  Effect.zipWith(previewRows(item.csv, PREVIEW_ROWS), JobNotes, (preview, notes) => {
    const a = item.approval
    const id = e(a.batch_id)
    const submitted = `Submitted ${e(f.time(a.submitted_at))}${a.submitted_by === undefined ? "" : ` by ${e(a.submitted_by)}`}; ${e(rowsWord(f, a.rows))}.`
    const warnings = warningsOf(a)
    const warningList = warnings.length === 0 ? "<p>No warnings.</p>" : `<ul aria-label="Warnings">${warnings.map((w) => `<li>${e(w)}</li>`).join("")}</ul>`
    const refusal = refusalFor(a, who.name, policy)
    const form = may(who.role, "approve") ? decisionForm(a, who.csrf, refusal === undefined ? undefined : notes.policyRefusal(refusal)) : ""
    return `<section aria-labelledby="batch-${id}"><h2 id="batch-${id}">${e(a.file)} <small>batch ${id}</small></h2>
<p>${submitted} ${e(policyText(a))}</p>${warningList}${totalsTable(f, a)}${previewTable(f, preview, a.rows)}${form}</section>`
  })

const listPage = Effect.fn("Console.approvalsPage")(function* (notice: Option.Option<Notice>) {
  const who = yield* SignedIn
  const settings = yield* ConsoleSettings
  const f = yield* userFormat
  const shown = Option.match(notice, {
    onNone: () => "",
    onSome: (n) => `<p role="${n.refused ? "alert" : "status"}" class="${n.refused ? "refused" : "done"}">${e(n.text)}</p>`
  })
  if (Option.isNone(settings.jobs)) return yield* page("Approvals", `${shown}<p>This console was started without a job folder: no batch can wait for approval here.</p>`)
  const waiting = yield* awaitingBatches(settings.jobs.value)
  const sections = yield* Effect.forEach(waiting, (item) => batchSection(f, who, settings.policy, item))
  const body = sections.length === 0 ? "<p>No batch is waiting for approval.</p>" : sections.join("\n")
  const response = yield* page("Approvals", `${shown}${body}`)
  return Option.isSome(notice) && notice.value.refused ? HttpServerResponse.setStatus(response, 409) : response
})

const DecisionForm = Schema.Struct({ reason: Schema.optionalWith(Schema.Trim, { default: () => "" }) })
const BatchParam = Schema.Struct({ batch: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{4,64}$/)) })

/** A decision: the same operation as `payouts approve` / `payouts reject`, by the signed-in person. */
const decision = Effect.fn("Console.decideApproval")(function* (kind: "approve" | "reject") {
  const who = yield* requirePermission("approve")
  const settings = yield* ConsoleSettings
  const { batch } = yield* HttpRouter.schemaPathParams(BatchParam)
  const { reason } = yield* HttpServerRequest.schemaBodyUrlParams(DecisionForm)
  if (reason === "") return yield* new ApprovalError({ refusal: Refusal.NoReason() })
  if (Option.isNone(settings.jobs)) return yield* new ApprovalError({ refusal: Refusal.NoJobFolder() })
  if (kind === "approve") {
    const { approval, file } = yield* approve(settings.jobs.value, batch, who.name, { policy: settings.policy, reason })
    return `Approved batch ${approval.batch_id} (${approval.file}) by ${who.name}: moved to ${file}; the watcher pays it on its next pass, only if the file is still exactly this batch.`
  }
  const { approval } = yield* reject(settings.jobs.value, batch, who.name, reason)
  return `Rejected batch ${approval.batch_id} (${approval.file}) by ${who.name}: moved to rejected/. Nothing was paid.`
})

/** The list again, with what was done or why not (the CLI's words) above it. */
const decide = (kind: "approve" | "reject") =>
  decision(kind).pipe(
    Effect.map((text): Notice => ({ refused: false, text })),
    Effect.catchTag("ApprovalError", (error) => Effect.map(JobNotes, (notes): Notice => ({ refused: true, text: `Not done: ${notes.refusal(error.refusal)}` }))),
    Effect.catchTag("ParseError", () => Effect.succeed<Notice>({ refused: true, text: "Not done: the form or the batch id could not be read." })),
    Effect.flatMap((notice) => listPage(Option.some(notice)))
  )

export const approvalsRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/approvals", listPage(Option.none())),
  HttpRouter.post("/approvals/:batch/approve", decide("approve")),
  HttpRouter.post("/approvals/:batch/reject", decide("reject"))
)
