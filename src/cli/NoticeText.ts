/**
 * The words of a run's notices (run/Notices.ts `RunEvent`): the pipeline says what happened, this
 * module says it to a person. One line, or a few, per event.
 */
import { describeHistory } from "../intake/SharedPhones.ts"
import { formatRowErrors } from "../output/ErrorsFile.ts"
import type { Format } from "../output/Format.ts"
import { type Notice, RunEvent } from "../run/Notices.ts"
import type { PreflightResult } from "../run/Preflight.ts"
import type { Overview } from "../run/RunRequest.ts"
import { describeHalt } from "../run/Safeguards.ts"
import { listingGapText } from "./ListingText.ts"
import { waitText } from "./WaitText.ts"

const plural = (format: Format, n: number, what: string) => `${format.count(n)} ${what}${n === 1 ? "" : "s"}`
const seconds = (ms: number) => Math.round(ms / 1000)

/** What a stop did with the rows it had claimed and not sent: said at every stop, 0 included. */
export const describeRelease = (released: number) =>
  released === 0
    ? "Released 0 rows: none was claimed and left unsent. The next run of this file continues the batch."
    : `Released ${released} row(s) claimed but never sent: validated again, not in doubt; the next run of this file pays them at once.`

/**
 * Why the preflight could not be made, with what to check: a refused key names the settings that
 * hold the credentials and the URL (the CLI's reading of DESIGN 10), not only the service's words.
 */
export const preflightFailed = (error: { readonly _tag: string; readonly message: string }): string =>
  error._tag === "AuthError"
    ? `Balance preflight failed: the service refused the credentials (401: ${error.message}). Check the API key and secret in use (--api-key / PAYOUTS_API_KEY, --api-secret / PAYOUTS_API_SECRET) and that they are this service's (--base-url / PAYOUTS_BASE_URL).`
    : `Balance preflight failed: ${error.message}`

/**
 * `payouts validate`'s last word: whether the file would be paid whole, and what it would cost, with
 * the user's thousands separators (`OK: 50 rows would be paid, 5,907,350 XOF + est. fees 118,150 XOF = total debited 6,025,500 XOF`).
 */
export const verdict = (result: PreflightResult, invalidRows: number, format: Format): string => {
  const rows = result.checks.reduce((n, c) => n + c.rows, 0)
  const money = (minor: number, currency: string) => `${format.minor(minor, currency)} ${currency}`
  const cost = result.checks
    .map((c) => `${money(c.amountMinor, c.currency)} + est. fees ${money(c.feeEstimateMinor, c.currency)} = total debited ${money(c.amountMinor + c.feeEstimateMinor, c.currency)}`)
    .join(", ")
  if (result.ok && invalidRows === 0) return `OK: ${plural(format, rows, "row")} would be paid, ${cost}.`
  const reasons = [
    ...(invalidRows > 0 ? [`${plural(format, invalidRows, "invalid row")} would be rejected`] : []),
    ...result.checks
      .filter((c) => !c.fits)
      .map((c) => `${c.currency} needs ${money(c.amountMinor + c.feeEstimateMinor, c.currency)}, ${money(c.availableMinor, c.currency)} available`)
  ]
  return `NOT OK: the file would not be paid whole: ${reasons.join("; ")}.`
}

/**
 * Each currency's figures in major units with the user's separators: the amount, the estimated fees,
 * the total debited, and the available balance before and after; two lines per currency (80 columns).
 */
export const describePreflight = (result: PreflightResult, format: Format): string =>
  result.checks
    .map((c) => {
      const money = (minor: number) => `${format.minor(minor, c.currency)} ${c.currency}`
      const total = c.amountMinor + c.feeEstimateMinor
      const cost = `  ${c.currency}: ${plural(format, c.rows, "row")}, ${money(c.amountMinor)} + est. fees ${money(c.feeEstimateMinor)} = total debited ${money(total)}`
      const pad = " ".repeat(c.currency.length + 4)
      if (c.fits) return `${cost}\n${pad}available ${money(c.availableMinor)}; after this batch ${money(c.availableMinor - c.debitMinor)}: fits`
      const short = `${pad}available ${money(c.availableMinor)}, short by ${money(total - c.availableMinor)}: INSUFFICIENT`
      if (c.skipped === 0) return `${cost}\n${short}`
      const paid = c.rows - c.skipped
      return `${cost}\n${short}\n${pad}${plural(format, paid, "row")} fit${paid === 1 ? "s" : ""} (total debited ${money(c.debitMinor)}), ${format.count(c.skipped)} skipped; after this batch ${money(c.availableMinor - c.debitMinor)}`
    })
    .join("\n")

/** The words of one event of a run. */
export const noticeText = (event: RunEvent, format: Format): string =>
  RunEvent.$match(event, {
    RowErrors: ({ errors, errorsFile, file }) => formatRowErrors(errors, { file, ...(errorsFile === undefined ? {} : { errorsFile }) }),
    FileRefused: ({ dryRun, errorsFile }) => {
      const where = errorsFile === undefined ? "" : ` Errors written to ${errorsFile}`
      return dryRun ? `NOT OK: the file would be refused, nothing paid.${where}` : `Refused: nothing was paid.${where}`
    },
    InvalidRowsSkipped: ({ count, dryRun, errorsFile }) =>
      `${count} invalid rows ${dryRun ? "would be rejected" : "kept as rejected"} (--skip-invalid)${errorsFile === undefined ? "" : `; see ${errorsFile}`}`,
    Resuming: ({ batchId }) => `Resuming batch ${batchId} (same file content as an earlier run)`,
    OutputsUnwritable: ({ problems }) => `Refused before paying anything: ${problems.join("; ")}.`,
    LeaseBusy: ({ batchId, holder }) =>
      `Batch ${batchId} is being run by another process (${holder ?? "unknown"}); not starting a second runner. Try again when it ends.`,
    WebhookListening: ({ callbackUrl, everyInterface, url }) =>
      everyInterface
        ? `Webhook receiver listening on every interface (${url}); the service is given ${callbackUrl ?? "no callback URL of this receiver"}`
        : `Webhook receiver listening at ${url}`,
    InterruptedEarly: ({ released }) => `Interrupted before this run sent any payout. ${describeRelease(released)}`,
    Interrupted: () => "Interrupted: no new payouts sent; finishing the requests in flight. Run again to resume.",
    ClaimsReleased: ({ released }) => describeRelease(released),
    ClaimsNotReleased: ({ message }) => `Claimed rows not released (${message}): the next run reconciles them.`,
    Stopped: ({ why }) => `Stopped: ${why}`,
    BatchPaused: ({ batchId, why }) => `Batch ${batchId} is paused (${why}): nothing new is sent. Resume with: payouts resume ${batchId}`,
    PhoneHistory: ({ phones }) => describeHistory(phones).join("\n"),
    SharedPhonesAccepted: ({ count, lines }) =>
      `${count} row(s) pay a phone an earlier row pays to another name, accepted (--allow-shared-phone): lines ${lines.join(", ")}${count > lines.length ? ", ..." : ""}`,
    PreflightFailed: ({ error }) => preflightFailed(error),
    PreflightFigures: ({ result }) => `Balance preflight:\n${describePreflight(result, format)}`,
    Verdict: ({ invalidRows, result }) => verdict(result, invalidRows, format),
    BalanceRefused: () => "Refused: the wallet cannot cover the batch (use --on-insufficient partial to pay what fits). Nothing was paid.",
    AccountAlarmInForce: ({ reason, since }) =>
      `Account alarm (since ${format.time(since)}): ${reason}. No automatic resend until a person clears it with payouts resolve --listing-ok.`,
    RowsUnderAlarm: ({ count }) => `${count} row(s) of this batch are under alarm and wait for payouts resolve.`,
    ForeignIntents: ({ runner }) => `Rows written by runner ${runner} (not proven dead) are never resent automatically; they wait and alarm at the deadline.`,
    HaltedAtStart: ({ halt }) =>
      `Halted: ${describeHalt(halt)}. This run sends no new payout; what was already sent is still followed. Lift the halt with: payouts halt --lift --by NAME`,
    BreakerTripped: ({ operator, run }) =>
      `Breaker tripped for ${operator}: ${run} consecutive failures. Its rows not yet sent are held (not sent); the other operators' rows go on.`,
    ProbeExpired: ({ first, operator, probeMs }) =>
      `Breaker probe: no final status from ${operator} within ${seconds(probeMs)} s of its first ${first} payouts; its other rows are sent without waiting.`,
    PausedEnd: ({ batchId, reason, waiting }) =>
      `Paused: ${reason}. ${waiting} row(s) held, not sent. Once the cause is dealt with, continue with: payouts resume ${batchId} (then run the same file again)`,
    HaltedEnd: ({ halt, waiting }) =>
      `Halted: ${describeHalt(halt)}. ${waiting} row(s) were not sent and wait; once the halt is lifted (payouts halt --lift --by NAME), run the file again to pay them.`,
    PersonMustAct: ({ accountAlarm, alarms, batchId }) =>
      `A person must act: ${alarms} row(s) under alarm${accountAlarm === undefined ? "" : `; account alarm: ${accountAlarm}`}. Re-running alone will not settle them. See: payouts resolve ${batchId}`,
    ReportUnwritten: ({ error }) => `Report not written: ${error}`,
    UpdatesNotWritten: ({ count }) => `lease lost: ${count} row update(s) not written; the runner that took over reconciles them`,
    OutputsRetrying: ({ why }) => `Outputs not written (${why}); trying again.`,
    OutputsFailed: ({ batchId, why }) =>
      `payouts: ${why}. Every payout of the batch is recorded in the state store; write the ledger, summary and report again with: payouts ledger ${batchId}`,
    AnomalyAlarm: ({ batchId, line, reason }) => `ALARM line ${line}: ${reason}. Not believed, not stored; see payouts resolve ${batchId} --line ${line}`,
    RowAlarmed: ({ batchId, line, reason, references }) =>
      `ALARM line ${line}: ${reason}${references.length > 0 ? ` (${references.join(", ")})` : ""}. It is never resent automatically; see payouts resolve ${batchId} --line ${line}`,
    PreScanAlarm: ({ batchId, line, reason, references }) =>
      `ALARM line ${line}: ${reason}${references.length > 0 ? ` (${references.join(", ")})` : ""}; it is not sent. See payouts resolve ${batchId} --line ${line}`,
    AccountAlarmRaised: ({ batchId, reason, references }) =>
      `ACCOUNT ALARM: ${reason} (e.g. ${references.join(", ")}). No row is resent automatically until a person checks the listing: payouts resolve ${batchId} --listing-ok --by NAME`,
    GraceRaised: ({ fromMs, lagMs, toMs }) =>
      `reconcile grace raised from ${seconds(fromMs)} s to ${seconds(toMs)} s: request timeout + lease time + twice the listing lag (p99 ${seconds(lagMs)} s)`,
    Waiting: ({ alarmAt, line, reason, until }) =>
      `line ${line}: outcome unknown, waiting: ${waitText(reason)}${until === undefined ? "" : ` (until ${format.time(until)})`}; alarm at ${format.time(alarmAt)} if still unproven`,
    Resending: ({ evidence, line, token }) => `line ${line}: resending once with the same token [${token}]: ${evidence}`,
    PreScanIncomplete: ({ days, first }) =>
      `Pre-scan: the listing of ${days} day(s) could not be read completely (${first.join(", ")}...): tokens there may be missed.`,
    AlreadyPaid: ({ day, line, reference, status }) =>
      `line ${line}: already paid by payout ${reference} (${status}, listed on ${day}), made outside this state store: adopted, not paid again`,
    PreScanAdopted: ({ count }) =>
      `PRE-SCAN: ${count} row(s) of this file were ALREADY PAID (their tokens are in the service's listing, e.g. by another state store or an earlier install): adopted, NOT paid again; the summary counts them as already_paid, not as paid by this batch.`,
    ListingSpanRead: ({ days, pages, payouts }) => `listing sync: ${days} days read at once (${payouts} payouts, ${pages} pages)`,
    ListingDaysRead: ({ day, done, of, pages, payouts }) => `listing sync: ${done}/${of} days read (${day}: ${payouts} payouts, ${pages} pages)`,
    ListingIncomplete: ({ day, earlier, from, gap }) =>
      `listing of ${day} not complete${earlier > 0 ? ` (and ${earlier} earlier day(s) from ${from}, alike)` : ""}: ${listingGapText(gap)}. No automatic resend relies on it.`
  })

/** The words of a notice that is said (a message, an event); undefined for progress and the run's end. */
export const wordsOf = (notice: Notice, format: Format): string | undefined => {
  switch (notice._tag) {
    case "Message":
      return notice.text
    case "Progress":
    case "ProgressEnd":
    case "Ended":
      return undefined
    default:
      return noticeText(notice, format)
  }
}

/** What is shown once before the question (Confirm.ts): the rows to pay, the preflight's figures, phones paid before to other names. */
export const confirmationOverview = (overview: Overview, format: Format): string =>
  [`${plural(format, overview.toPay, "row")} to pay`, describePreflight(overview.preflight, format), ...describeHistory(overview.phones)].join("\n")
