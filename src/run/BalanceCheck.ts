/**
 * The balance preflight against the service's wallets (DESIGN 6): for a run, over the rows still to
 * send in the store; for `payouts validate`, over the rows intake checked, nothing stored.
 */
import { Effect, Either, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { formatAmount, fromWire } from "../domain/Money.ts"
import type { Intake } from "../intake/Intake.ts"
import { PendingColumns } from "../intake/PendingColumns.ts"
import { describeHistory, type PhoneFindings, sharedPhoneFields } from "../intake/SharedPhones.ts"
import { type Format, userFormat } from "../output/Format.ts"
import { makeSummary } from "../output/Outputs.ts"
import { EXIT_OK, EXIT_REFUSED } from "./ExitCode.ts"
import { say } from "./Notices.ts"
import type { RefusalCause } from "./Outcome.ts"
import { type PreflightResult, preflight } from "./Preflight.ts"
import { RunContext, type RunSettings } from "./RunContext.ts"
import { resultOf, type RunRequest } from "./RunRequest.ts"

const preflightOf = Effect.fn("BalanceCheck.preflight")(function* (pending: PendingColumns, settings: RunSettings) {
    const client = yield* PaymentClient
    const wallets = yield* client.wallets()
    const available = new Map<string, number>()
    for (const w of wallets) available.set(w.currency, (available.get(w.currency) ?? 0) + fromWire(w.available_balance, w.currency))
    return preflight(pending.rows(), available, settings.feePercent, settings.onInsufficient)
  })

export const loadPreflight = Effect.fn("BalanceCheck.load")(function* () {
    const ctx = yield* RunContext
    const pending = new PendingColumns()
    yield* ctx.batchStore.streamPending().pipe(Stream.runForEach((r) => Effect.sync(() => pending.push(r.idx, r.currency, r.amountMinor))))
    return yield* preflightOf(pending, ctx.settings)
  })

/** `payouts validate` of a new file: the preflight over the checked rows; nothing was stored. */
export const dryRunOutcome = Effect.fn("BalanceCheck.dryRun")(function* (request: RunRequest, checked: Extract<Intake, { _tag: "Checked" }>, startedAt: number) {
    yield* sayPhones(checked.phones)
    const result = yield* preflightOf(checked.pending, request.settings).pipe(Effect.either)
    if (Either.isLeft(result)) yield* say(preflightFailed(result.left))
    else if (result.right.checks.length > 0) yield* say(`Balance preflight:\n${describePreflight(result.right, yield* userFormat)}`)
    if (Either.isRight(result)) yield* say(verdict(result.right, checked.errors.length, yield* userFormat))
    const whole = Either.isRight(result) && result.right.ok && checked.errors.length === 0
    const exitCode = whole ? EXIT_OK : EXIT_REFUSED
    const checks = Either.isRight(result) ? result.right.checks : []
    const totals = Object.fromEntries(
      checks.map((c) => [c.currency, { rows: c.rows, amount: formatAmount(c.amountMinor, c.currency), completed_amount: "0", fees: "0" }])
    )
    const summary = yield* makeSummary({
      batchId: checked.batchId,
      file: request.file,
      startedAt,
      counts: { validated: checked.pending.length, rejected: checked.rejected },
      totals,
      exitCode,
      outcome: Either.isLeft(result) ? `refused: ${result.left.message}` : whole ? "valid: would be paid whole" : "would not be paid whole",
      extra: {
        fee_estimates: Object.fromEntries(checks.map((c) => [c.currency, formatAmount(c.feeEstimateMinor, c.currency)])),
        ...sharedPhoneFields(request.allowSharedPhone === true, checked.phones)
      }
    })
    const cause: RefusalCause = Either.isLeft(result) ? "service" : checked.errors.length > 0 ? "invalid-file" : "balance"
    return resultOf(exitCode, summary, String(summary.outcome), cause)
  })

/** What validate says of shared phones: the rows --allow-shared-phone accepted, the phones paid before to other names. */
const sayPhones = (phones: PhoneFindings | undefined) =>
  Effect.gen(function* () {
    if (phones === undefined) return
    const { count } = phones.accepted
    if (count > 0) yield* say(`${count} row(s) pay a phone an earlier row pays to another name, accepted (--allow-shared-phone): lines ${phones.accepted.rows.map((r) => r.line).join(", ")}${count > phones.accepted.rows.length ? ", ..." : ""}`)
    const history = describeHistory(phones)
    if (history.length > 0) yield* say(history.join("\n"))
  })

/**
 * Why the preflight could not be made, with what to check: a refused key names the settings that
 * hold the credentials and the URL (the CLI's reading of DESIGN 10), not only the service's words.
 */
export const preflightFailed = (error: { readonly _tag: string; readonly message: string }): string =>
  error._tag === "AuthError"
    ? `Balance preflight failed: the service refused the credentials (401: ${error.message}). Check the API key and secret in use (--api-key / PAYOUTS_API_KEY, --api-secret / PAYOUTS_API_SECRET) and that they are this service's (--base-url / PAYOUTS_BASE_URL).`
    : `Balance preflight failed: ${error.message}`

const plural = (format: Format, n: number, what: string) => `${format.count(n)} ${what}${n === 1 ? "" : "s"}`

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
 * Each currency's figures in major units with the user's separators (issue 31 item 6): the amount,
 * the estimated fees, what the wallet is debited in all, and the available balance before and after.
 * Two lines per currency, so that each stays readable on an 80-column terminal.
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

/** What is shown once before the question (Confirm.ts): the rows to pay, the preflight's figures, phones paid before to other names. */
export const confirmationOverview = (toPay: number, result: PreflightResult, format: Format, history: ReadonlyArray<string>): string =>
  [`${plural(format, toPay, "row")} to pay`, describePreflight(result, format), ...history].join("\n")
