/**
 * The balance preflight against the service's wallets (DESIGN 6): for a run, over the rows still to
 * send in the store; for `payouts validate`, over the rows intake checked, nothing stored.
 */
import { Effect, Either, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { formatAmount, fromWire } from "../domain/Money.ts"
import type { Intake } from "../intake/IntakeResult.ts"
import { PendingColumns } from "../intake/PendingColumns.ts"
import { type PhoneFindings, sharedPhoneFields } from "../intake/SharedPhones.ts"
import { makeSummary } from "../output/Outputs.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { EXIT_OK, EXIT_REFUSED } from "./ExitCode.ts"
import { RunEvent, tell } from "./Notices.ts"
import type { RefusalCause } from "./Outcome.ts"
import { preflight } from "./Preflight.ts"
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
    const reads = yield* Rows
    const pending = new PendingColumns()
    yield* reads.streamPending(ctx.accountId, ctx.batchId).pipe(Stream.runForEach((r) => Effect.sync(() => pending.push(r.idx, r.currency, r.amountMinor))))
    return yield* preflightOf(pending, ctx.settings)
  })

/** `payouts validate` of a new file: the preflight over the checked rows; nothing was stored. */
export const dryRunOutcome = Effect.fn("BalanceCheck.dryRun")(function* (request: RunRequest, checked: Extract<Intake, { _tag: "Checked" }>, startedAt: number) {
    yield* sayPhones(checked.phones)
    const result = yield* preflightOf(checked.pending, request.settings).pipe(Effect.either)
    if (Either.isLeft(result)) yield* tell(RunEvent.PreflightFailed({ error: result.left }))
    else if (result.right.checks.length > 0) yield* tell(RunEvent.PreflightFigures({ result: result.right }))
    if (Either.isRight(result)) yield* tell(RunEvent.Verdict({ result: result.right, invalidRows: checked.errors.length }))
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
    if (count > 0) yield* tell(RunEvent.SharedPhonesAccepted({ count, lines: phones.accepted.rows.map((r) => r.line) }))
    if (phones.historyCount > 0) yield* tell(RunEvent.PhoneHistory({ phones }))
  })
