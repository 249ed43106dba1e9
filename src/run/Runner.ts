/**
 * One batch run, end to end: intake, lease, preflight, recovery of an interrupted run, submission,
 * reconciliation and tracking until every row is final (or the run must stop), then the outputs.
 */
import { FileSystem } from "@effect/platform"
import { SystemError } from "@effect/platform/Error"
import { Clock, Duration, Effect, Either, Option, Queue, Ref, Schedule, Stream } from "effect"
import { dirname } from "node:path"
import { PaymentClient } from "../api/Client.ts"
import { formatAmount, fromWire } from "../domain/Money.ts"
import type { Fence } from "../store/Model.ts"
import { IN_DOUBT_STATES, IN_FLIGHT_STATES, NOT_SENT_STATES } from "../store/RowState.ts"
import { StateStore } from "../store/StateStore.ts"
import { EXIT_ATTENTION, EXIT_FINISHED_WITH_FAILURES, EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED, exitCodeFor } from "./ExitCode.ts"
import { formatRowErrors } from "../output/ErrorsFile.ts"
import { type Intake, intake, type PendingColumns } from "../intake/Intake.ts"
import { acquireLease, isDeadLocalOwner, runnerName } from "./Lease.ts"
import { describeWriteError, outputPaths } from "../output/AtomicFile.ts"
import { checkWritable } from "../output/OutputCheck.ts"
import { reportPath, writeReport } from "../output/Report.ts"
import { concludeSafeguards } from "./Safeguards.ts"
import { makeSummary, totalsByCurrency, writeErrors, writeLedgerFromStore, writeSummaryFile } from "../output/Outputs.ts"
import { type PreflightResult, preflight } from "./Preflight.ts"
import { preScan } from "./PreScan.ts"
import { makeReconciler } from "./Reconciler.ts"
import { DEFAULT_LEASE_TTL_MS, makeRunContext, type RunContext, type RunSettings } from "./RunContext.ts"
import { makeSubmitter } from "./Submitter.ts"
import { makeTracker } from "./Tracker.ts"
import { startWebhookReceiver } from "./WebhookReceiver.ts"
import { reportProgress } from "./Progress.ts"
import { say } from "./Notices.ts"
import { outcomeFor, type Outcome, type RefusalCause } from "./Outcome.ts"

export interface RunRequest {
  readonly accountId: string
  /** What row tokens are minted from (the service's wallet ids); default the account id. */
  readonly tokenScope?: string
  readonly file: string
  readonly outDir?: string
  readonly settings: RunSettings
  readonly skipInvalid: boolean
  readonly allowRepeats: boolean
  readonly repeatWindow: Duration.Duration
  readonly listen?: { readonly host: string; readonly port: number }
  readonly ledgerEvery: Duration.Duration
  readonly progressEvery: Duration.Duration
  /** `payouts validate`: intake and preflight only; the batch is not kept. */
  readonly dryRun: boolean
  /** The state store's file, checked for room before the first payout (none: not checked). */
  readonly statePath?: string
  /** How long outputs that cannot be written are retried at the end before exit 4 (default 2 minutes). */
  readonly outputRetry?: Duration.Duration
  /**
   * Asked once before the first payout with what is about to be paid (the preflight's lines); false
   * stops the run with nothing paid. Undefined: nothing is asked (`--yes`, no terminal, the sandbox).
   */
  readonly confirm?: (overview: string) => Effect.Effect<boolean>
}

export interface RunResult {
  /** How the run ended; `exitCode` is `exitCodeOf(outcome)`. */
  readonly outcome: Outcome
  readonly exitCode: number
  readonly summary: Readonly<Record<string, unknown>>
}

/** A result whose outcome is the one its exit code stands for. */
const resultOf = (exitCode: number, summary: Readonly<Record<string, unknown>>, message: string, cause?: RefusalCause): RunResult => ({
  outcome: outcomeFor(exitCode, message, cause),
  exitCode,
  summary
})

const TICK = Duration.millis(100)

const preflightOf = (pending: PendingColumns, settings: RunSettings) =>
  Effect.gen(function* () {
    const client = yield* PaymentClient
    const wallets = yield* client.wallets()
    const available = new Map<string, number>()
    for (const w of wallets) available.set(w.currency, (available.get(w.currency) ?? 0) + fromWire(w.available_balance, w.currency))
    const rows = function* () {
      for (let i = 0; i < pending.idxs.length; i++) yield { idx: pending.idxs[i], currency: pending.currencies[i], amountMinor: pending.amounts[i] }
    }
    return preflight(rows(), available, settings.feePercent, settings.onInsufficient)
  })

const loadPreflight = (ctx: RunContext) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const pending: PendingColumns = { idxs: [], currencies: [], amounts: [] }
    yield* store.streamPending(ctx.accountId, ctx.batchId).pipe(
      Stream.runForEach((r) =>
        Effect.sync(() => {
          pending.idxs.push(r.idx)
          pending.amounts.push(r.amountMinor)
          pending.currencies.push(r.currency)
        })
      )
    )
    return yield* preflightOf(pending, ctx.settings)
  })

/** `payouts validate` of a new file: the preflight over the checked rows; nothing was stored. */
const dryRunOutcome = (request: RunRequest, checked: Extract<Intake, { _tag: "Checked" }>, startedAt: number) =>
  Effect.gen(function* () {
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
      counts: { validated: checked.pending.idxs.length, rejected: checked.rejected },
      totals,
      exitCode,
      outcome: Either.isLeft(result) ? `refused: ${result.left.message}` : whole ? "valid: would be paid whole" : "would not be paid whole",
      extra: { fee_estimates: Object.fromEntries(checks.map((c) => [c.currency, formatAmount(c.feeEstimateMinor, c.currency)])) }
    })
    const cause: RefusalCause = Either.isLeft(result) ? "service" : checked.errors.length > 0 ? "invalid-file" : "balance"
    return resultOf(exitCode, summary, String(summary.outcome), cause)
  })

const describePreflight = (result: PreflightResult): string =>
  result.checks
    .map((c) => {
      const fmt = (minor: number) => `${formatAmount(minor, c.currency)} ${c.currency}`
      const verdict = c.fits ? "fits" : "INSUFFICIENT"
      return `  ${c.currency}: ${c.rows} rows, ${fmt(c.amountMinor)} + est. fees ${fmt(c.feeEstimateMinor)}; available ${fmt(c.availableMinor)}: ${verdict}`
    })
    .join("\n")

/** Alarms kept by earlier runs, and rows whose intents belong to a runner proven dead (rule 5). */
const loadAlarms = (ctx: RunContext) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const flagged = yield* store.flaggedRows(ctx.accountId, ctx.batchId)
    const alarms = new Map(flagged.filter((r) => r.alarm !== null).map((r) => [r.idx, { reason: r.alarm ?? "", references: r.candidates ?? [] }]))
    yield* Ref.set(ctx.alarms, alarms)
    const account = yield* store.accountAlarm(ctx.accountId)
    if (Option.isSome(account)) {
      yield* Ref.set(ctx.accountAlarm, account.value.reason)
      yield* say(`Account alarm (since ${new Date(account.value.at).toISOString()}): ${account.value.reason}. No automatic resend until a person clears it with payouts resolve --listing-ok.`)
    }
    if (alarms.size > 0) yield* say(`${alarms.size} row(s) of this batch are under alarm and wait for payouts resolve.`)
    const owners = new Set<string>()
    yield* store.streamRowsInStates(ctx.accountId, ctx.batchId, IN_DOUBT_STATES).pipe(
      Stream.runForEach((r) => Effect.sync(() => r.intentOwner !== null && r.intentOwner !== ctx.owner && owners.add(r.intentOwner)))
    )
    for (const previous of owners) {
      if (isDeadLocalOwner(previous)) yield* store.adoptIntents(ctx.accountId, ctx.batchId, previous, ctx.owner)
      else yield* say(`Rows written by runner ${previous} (not proven dead) are never resent automatically; they wait and alarm at the deadline.`)
    }
  })

export const runBatch = (request: RunRequest) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const startedAt = yield* Clock.currentTimeMillis
    const paths = outputPaths(request.file, request.outDir)
    const fs = yield* FileSystem.FileSystem
    if (request.outDir !== undefined) yield* fs.makeDirectory(request.outDir, { recursive: true })
    const { accountId } = request

    const loaded = yield* intake({
      accountId,
      ...(request.tokenScope === undefined ? {} : { tokenScope: request.tokenScope }),
      file: request.file,
      skipInvalid: request.skipInvalid,
      allowRepeats: request.allowRepeats,
      repeatWindow: request.repeatWindow,
      options: { skipInvalid: request.skipInvalid, allowRepeats: request.allowRepeats },
      dryRun: request.dryRun,
      ...(request.settings.safeguards?.guards === undefined ? {} : { guards: request.settings.safeguards.guards })
    })
    if (loaded._tag === "Refused") {
      yield* writeErrors(paths, loaded.errors)
      yield* say(formatRowErrors(loaded.errors, { file: request.file, errorsFile: paths.errors }))
      yield* say(`Refused: nothing was paid. Errors written to ${paths.errors}`)
      const summary = yield* makeSummary({
        batchId: loaded.batchId,
        file: request.file,
        startedAt,
        counts: { rejected: loaded.rows },
        totals: {},
        exitCode: EXIT_REFUSED,
        outcome: "refused: invalid file",
        extra: { errors: loaded.errors.length, errors_file: paths.errors }
      })
      if (!request.dryRun) yield* writeSummaryFile(paths, summary)
      return resultOf(EXIT_REFUSED, summary, "invalid file", "invalid-file")
    }
    if (loaded._tag === "Checked") {
      if (loaded.errors.length > 0) {
        yield* writeErrors(paths, loaded.errors)
        yield* say(`${loaded.errors.length} invalid rows would be rejected (--skip-invalid); see ${paths.errors}`)
      }
      return yield* dryRunOutcome(request, loaded, startedAt)
    }
    const batchId = loaded.batch.batchId
    if (loaded.errors.length > 0) {
      yield* writeErrors(paths, loaded.errors)
      yield* say(`${loaded.errors.length} invalid rows kept as rejected (--skip-invalid); see ${paths.errors}`)
    }
    if (loaded.resumed) yield* say(`Resuming batch ${batchId} (same file content as an earlier run)`)
    if (!request.dryRun) {
      // Before the first payout: a ledger that cannot be written must not be found out after paying.
      const rows = Object.values(yield* store.countByState(accountId, batchId)).reduce((a, b) => a + b, 0)
      const problems = yield* checkWritable({ outDir: dirname(paths.ledger), statePath: request.statePath, rows })
      if (problems.length > 0) {
        yield* say(`Refused before paying anything: ${problems.join("; ")}.`)
        return resultOf(EXIT_INTERNAL, { batch_id: batchId, outcome: `refused: ${problems.join("; ")}`, exit_code: EXIT_INTERNAL }, problems.join("; "))
      }
    }

    return yield* Effect.scoped(
      Effect.gen(function* () {
        const owner = runnerName()
        const leaseTtl = Duration.millis(request.settings.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS)
        const leaseStart = yield* Clock.currentTimeMillis
        // A dry run holds no lease: its fence matches none, so a row write it attempted would be refused.
        let fence: Fence = { owner, number: -1 }
        if (!request.dryRun) {
          const held = yield* acquireLease(accountId, batchId, owner, leaseTtl)
          if (Option.isNone(held)) {
            const batch = yield* store.getBatch(accountId, batchId)
            const holder = Option.flatMap(batch, (b) => Option.fromNullable(b.leaseOwner))
            yield* say(
              `Batch ${batchId} is being run by another process (${Option.getOrElse(holder, () => "unknown")}); not starting a second runner. Try again when it ends.`
            )
            return resultOf(EXIT_INCOMPLETE, { batch_id: batchId, outcome: "busy: another runner holds the batch", exit_code: EXIT_INCOMPLETE }, "another runner holds the batch")
          }
          fence = held.value
          // Leaving cleanly: every POST of ours has ended, so our unknown rows no longer need our word (rule 5).
          yield* Effect.addFinalizer(() =>
            Effect.zipRight(store.releaseIntents(accountId, batchId, owner), store.releaseLease(accountId, batchId, owner)).pipe(Effect.ignore)
          )
        }
        const wakeups = yield* Queue.unbounded<string>()
        let settings = request.settings
        if (request.listen !== undefined && !request.dryRun) {
          const receiver = yield* startWebhookReceiver(request.listen, (reference) => Queue.offer(wakeups, reference).pipe(Effect.asVoid))
          yield* say(`Webhook receiver listening at ${receiver.url}`)
          settings = { ...settings, callbackUrl: settings.callbackUrl ?? receiver.url, webhooks: true }
        }
        const ctx = yield* makeRunContext(accountId, batchId, settings, fence)
        const writer = ctx.writer
        if (loaded.batch.state === "paused") {
          const why = loaded.batch.pauseReason ?? "paused"
          yield* ctx.safeguards.pause(why)
          yield* say(`Batch ${batchId} is paused (${why}): nothing new is sent. Resume with: payouts resume ${batchId}`)
        }

        // One ledger write at a time: a periodic write of an older snapshot must not land after the final one.
        const ledgerLock = yield* Effect.makeSemaphore(1)
        let prescanAdopted = 0
        // Ledger, summary and report, retried with backoff while they cannot be written (a full disk
        // being cleaned up, a share coming back), then given up on: exit 4, the store has it all.
        const writeOutputs = (summary: object) =>
          Effect.gen(function* () {
            yield* ledgerLock.withPermits(1)(writeLedgerFromStore(paths, accountId, batchId))
            yield* writeSummaryFile(paths, summary)
            yield* writeReport(reportPath(paths), accountId, batchId, summary).pipe(
              Effect.catchIf((e) => !(e instanceof SystemError), (e) => say(`Report not written: ${String(e)}`))
            )
          }).pipe(
            Effect.tapError((e) => say(`Outputs not written (${describeWriteError(e)}); trying again.`)),
            Effect.retry(
              Schedule.exponential("500 millis").pipe(
                Schedule.union(Schedule.spaced("10 seconds")),
                Schedule.upTo(request.outputRetry ?? Duration.minutes(2))
              )
            )
          )
        const finish = (outcome: string, forced?: number, cause?: RefusalCause) =>
          Effect.gen(function* () {
            yield* writer.flush
            const counts = yield* store.countByState(accountId, batchId)
            const alarms = yield* Ref.get(ctx.alarms)
            const accountAlarm = yield* Ref.get(ctx.accountAlarm)
            const needsPerson = alarms.size > 0 || (accountAlarm !== undefined && counts.unknown > 0)
            const exitCode = forced ?? (needsPerson ? EXIT_ATTENTION : exitCodeFor(counts, false))
            if (needsPerson && !request.dryRun) {
              yield* say(
                `A person must act: ${alarms.size} row(s) under alarm${accountAlarm === undefined ? "" : `; account alarm: ${accountAlarm}`}. Re-running alone will not settle them. See: payouts resolve ${batchId} --by NAME`
              )
            }
            const guarded = yield* concludeSafeguards(ctx, counts, !request.dryRun)
            const alarmRows = yield* Effect.forEach([...alarms.entries()], ([idx, alarm]) =>
              Effect.map(store.getRow(accountId, batchId, idx), (row) => ({
                line: Option.match(row, { onNone: () => 0, onSome: (r) => r.line }),
                reason: alarm.reason,
                references: alarm.references
              }))
            )
            const summary = yield* makeSummary({
              batchId,
              file: request.file,
              startedAt,
              counts,
              totals: yield* totalsByCurrency(accountId, batchId, request.settings.feePercent),
              exitCode,
              outcome: guarded.paused !== undefined && outcome === "finished" ? `paused: ${guarded.paused}` : outcome,
              alarms: alarmRows,
              extra: {
                ledger: paths.ledger,
                report: reportPath(paths),
                ...(accountAlarm === undefined ? {} : { account_alarm: accountAlarm }),
                ...(prescanAdopted > 0 ? { already_paid_adopted: prescanAdopted } : {}),
                ...guarded.extra
              }
            })
            // Every row final (exit 0 or 1): the batch is done, and `payouts batches` says so.
            if (!request.dryRun && (exitCode === EXIT_OK || exitCode === EXIT_FINISHED_WITH_FAILURES) && guarded.paused === undefined) {
              yield* store.setBatchState(accountId, batchId, "done")
            }
            if (request.dryRun) {
              // A dry run leaves no trace, but never touches a batch an earlier run created.
              if (!loaded.resumed) yield* store.deleteBatch(accountId, batchId)
            } else {
              const written = yield* writeOutputs(summary).pipe(Effect.either)
              if (written._tag === "Left") {
                // Every payout is in the store: the outputs can be written again at any time.
                const why = describeWriteError(written.left)
                yield* say(`payouts: ${why}. Every payout of the batch is recorded in the state store; write the ledger, summary and report again with: payouts ledger ${batchId}`)
                return resultOf(EXIT_INTERNAL, { ...summary, exit_code: EXIT_INTERNAL, outputs_error: why }, why)
              }
            }
            return resultOf(exitCode, summary, String(summary.outcome), cause)
          })

        if (!request.dryRun) {
          yield* loadAlarms(ctx)
          // The lease is ours until the start of its last successful renewal + TTL (local clock); a
          // runner that cannot renew lets it lapse and stops sending (leaseValid), one that finds it
          // taken stops at once.
          yield* Ref.set(ctx.leaseUntil, leaseStart + Duration.toMillis(leaseTtl))
          const renew = Effect.gen(function* () {
            const start = yield* Clock.currentTimeMillis
            const ok = yield* store.renewLease(accountId, batchId, fence, leaseTtl)
            if (ok) yield* Ref.set(ctx.leaseUntil, start + Duration.toMillis(leaseTtl))
            else yield* Ref.set(ctx.stop, { _tag: "LeaseLost" })
          })
          yield* Effect.sleep(Duration.millis(Math.max(50, Duration.toMillis(leaseTtl) / 3))).pipe(
            Effect.zipRight(renew),
            Effect.ignore,
            Effect.forever,
            Effect.forkScoped
          )
        }

        // Before any row is claimed: is any of it already paid (a lost, deleted or second store)?
        if (!request.dryRun) {
          const found = yield* preScan(ctx)
          prescanAdopted = found.adopted
        }

        const counts0 = yield* store.countByState(accountId, batchId)
        const everSent = Object.entries(counts0).some(([s, n]) => n > 0 && !NOT_SENT_STATES.some((state) => state === s))
        const preflightResult = yield* loadPreflight(ctx).pipe(Effect.either)
        if (preflightResult._tag === "Left") {
          const error = preflightResult.left
          yield* say(`Balance preflight failed: ${error.message}`)
          return yield* finish(`refused: ${error.message}`, everSent ? EXIT_INCOMPLETE : EXIT_REFUSED, "service")
        }
        const checked = preflightResult.right
        if (checked.checks.length > 0) yield* say(`Balance preflight:\n${describePreflight(checked)}`)
        if (!checked.ok && request.settings.onInsufficient === "abort") {
          yield* say("Refused: the wallet cannot cover the batch (use --on-insufficient partial to pay what fits). Nothing was paid.")
          return yield* finish("refused: insufficient balance", everSent ? EXIT_INCOMPLETE : EXIT_REFUSED, "balance")
        }
        if (request.dryRun) {
          // validate: 0 when the file would be paid whole, 2 when it would not.
          const whole = checked.ok && loaded.errors.length === 0
          return yield* finish(whole ? "valid: would be paid whole" : "would not be paid whole", whole ? EXIT_OK : EXIT_REFUSED, loaded.errors.length > 0 ? "invalid-file" : "balance")
        }
        for (const idx of checked.skip) {
          yield* writer.record({ idx, from: ["validated"], to: "skipped", error: "insufficient balance (preflight)", source: "preflight" })
        }

        if (request.confirm !== undefined) {
          const toPay = (yield* store.countByState(accountId, batchId)).validated
          if (toPay > 0 && !(yield* request.confirm(`${toPay} row(s) to pay\n${describePreflight(checked)}`))) {
            yield* say("Not confirmed: nothing was paid.")
            return yield* finish("declined: not confirmed, nothing paid", everSent ? EXIT_INCOMPLETE : EXIT_REFUSED, "declined")
          }
        }

        const submitter = yield* makeSubmitter(ctx)
        yield* Effect.addFinalizer(() => submitter.releaseUnsent.pipe(Effect.ignore))
        const reconciler = yield* makeReconciler(ctx, submitter.resend)
        const tracker = yield* makeTracker(ctx, wakeups)

        // A previous run that stopped between intent and answer: reconcile, never resend blindly.
        yield* store.streamRowsInStates(accountId, batchId, ["submitting"]).pipe(
          Stream.runForEach((r) =>
            writer.record({ idx: r.idx, from: ["submitting"], to: "unknown", source: "reconcile", detail: "found in submitting at start: the previous run stopped between intent and answer" })
          )
        )
        const now = yield* Clock.currentTimeMillis
        yield* store.streamRowsInStates(accountId, batchId, IN_FLIGHT_STATES).pipe(
          Stream.runForEach((r) =>
            Effect.sync(() => {
              if (r.reference !== null) ctx.polls.push({ idx: r.idx, reference: r.reference, dueAt: now, interval: request.settings.pollIntervalMs, since: now })
            })
          )
        )
        yield* writer.flush

        yield* Effect.forkScoped(tracker.run)
        yield* Effect.forkScoped(reportProgress(ctx, request.progressEvery))
        yield* ledgerLock.withPermits(1)(writeLedgerFromStore(paths, accountId, batchId)).pipe(
          Effect.ignore,
          Effect.delay(request.ledgerEvery),
          Effect.forever,
          Effect.forkScoped
        )

        const reconcileEvery = Math.min(Math.max(request.settings.reconcileGraceMs / 4, 500), 30_000)
        const loop = Effect.gen(function* () {
          let lastReconcile = 0
          while ((yield* Ref.get(ctx.stop)) === undefined) {
            yield* submitter.submitAll
            yield* writer.flush
            const t = yield* Clock.currentTimeMillis
            // Whether more rows are unknown than under alarm, without counting a big batch every tick.
            const alarmed = (yield* Ref.get(ctx.alarms)).size
            const unknown = (yield* store.rowsInStates(accountId, batchId, ["unknown"], { limit: alarmed + 1 })).length - alarmed
            if (unknown > 0 && t - lastReconcile >= reconcileEvery) {
              lastReconcile = t
              const r = yield* reconciler.round
              if (r.resent > 0 || r.adopted > 0) continue
            }
            // Under an account alarm nothing can be proven: the unknown rows wait for a person.
            const blocked = (yield* Ref.get(ctx.accountAlarm)) !== undefined
            if ((unknown <= 0 || blocked) && (yield* tracker.tracked) === 0) {
              // A last look for a second payout of any row resent in this run before the run ends.
              if (lastReconcile > 0 && !blocked) yield* reconciler.round
              return
            }
            yield* Effect.sleep(TICK)
          }
        })
        yield* loop.pipe(
          Effect.onInterrupt(() =>
            Effect.zipRight(
              say("Interrupted: no new payouts sent; finishing the requests in flight. Run again to resume."),
              Effect.zipRight(Effect.zipRight(submitter.awaitInFlight, submitter.releaseUnsent), finish("interrupted", EXIT_INCOMPLETE)).pipe(Effect.ignore)
            )
          )
        )
        const stop = yield* Ref.get(ctx.stop)
        if (stop !== undefined) {
          const why = stop._tag === "LeaseLost" ? "another process took over the batch's lease" : stop.message
          yield* say(`Stopped: ${why}`)
          // Requests already sent end (or time out) before the intents are released to the next runner.
          yield* submitter.awaitInFlight
          const sent = everSent || (yield* Ref.get(ctx.sentAny))
          return yield* finish(`stopped: ${why}`, stop._tag === "Auth" && !sent ? EXIT_REFUSED : EXIT_INCOMPLETE, "service")
        }
        return yield* finish("finished")
      })
    )
  })
