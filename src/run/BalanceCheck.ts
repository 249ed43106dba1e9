/**
 * The balance preflight against the service's wallets (DESIGN 6): for a run, over the rows still to
 * send in the store; for `payouts validate`, over the rows intake checked, nothing stored.
 */
import { Effect, Either, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { formatAmount, fromWire } from "../domain/Money.ts"
import type { Intake } from "../intake/Intake.ts"
import { PendingColumns } from "../intake/PendingColumns.ts"
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
    const result = yield* preflightOf(checked.pending, request.settings).pipe(Effect.either)
    if (Either.isLeft(result)) yield* say(`Balance preflight failed: ${result.left.message}`)
    else if (result.right.checks.length > 0) yield* say(`Balance preflight:\n${describePreflight(result.right)}`)
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
      extra: { fee_estimates: Object.fromEntries(checks.map((c) => [c.currency, formatAmount(c.feeEstimateMinor, c.currency)])) }
    })
    const cause: RefusalCause = Either.isLeft(result) ? "service" : checked.errors.length > 0 ? "invalid-file" : "balance"
    return resultOf(exitCode, summary, String(summary.outcome), cause)
  })

export const describePreflight = (result: PreflightResult): string =>
  result.checks
    .map((c) => {
      const fmt = (minor: number) => `${formatAmount(minor, c.currency)} ${c.currency}`
      const verdict = c.fits ? "fits" : "INSUFFICIENT"
      return `  ${c.currency}: ${c.rows} rows, ${fmt(c.amountMinor)} + est. fees ${fmt(c.feeEstimateMinor)}; available ${fmt(c.availableMinor)}: ${verdict}`
    })
    .join("\n")
