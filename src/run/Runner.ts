/**
 * One batch run, end to end: intake, lease, preflight, recovery of an interrupted run, submission,
 * reconciliation and tracking until every row is final (or the run must stop), then the outputs.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Duration, Effect, Option, Queue, Ref, Schedule, Stream } from "effect"
import { dirname } from "node:path"
import { intake } from "../intake/Intake.ts"
import { outputPaths } from "../output/AtomicFile.ts"
import { formatRowErrors } from "../output/ErrorsFile.ts"
import { checkWritable } from "../output/OutputCheck.ts"
import { makeSummary, writeErrors, writeLedgerFromStore, writeSummaryFile } from "../output/Outputs.ts"
import type { Fence, StoreError } from "../store/Model.ts"
import { IN_FLIGHT_STATES, NOT_SENT_STATES } from "../store/RowState.ts"
import { StateStore } from "../store/StateStore.ts"
import { describePreflight, dryRunOutcome, loadPreflight } from "./BalanceCheck.ts"
import { makeConclusion } from "./Conclusion.ts"
import { EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED } from "./ExitCode.ts"
import { acquireLease, runnerName } from "./Lease.ts"
import { keepLease } from "./LeaseKeeper.ts"
import { say } from "./Notices.ts"
import { reportProgress } from "./Progress.ts"
import { preScan } from "./PreScan.ts"
import { makeReconciler } from "./Reconciler.ts"
import { loadAlarms } from "./Recovery.ts"
import { DEFAULT_LEASE_TTL_MS, makeRunContext } from "./RunContext.ts"
import { resultOf, type RunRequest, type RunResult } from "./RunRequest.ts"
import { makeSubmitter } from "./Submitter.ts"
import { follow, makeTracker } from "./Tracker.ts"
import { startWebhookReceiver } from "./WebhookReceiver.ts"

export type { RunRequest, RunResult }

const TICK = Duration.millis(100)

export const runBatch = Effect.fn("Runner.run")(function* (request: RunRequest) {
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
      const rows = Object.values(yield* store.batch(accountId, batchId).countByState()).reduce((a, b) => a + b, 0)
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
            const batch = yield* store.batch(accountId, batchId).getBatch()
            const holder = Option.flatMap(batch, (b) => Option.fromNullable(b.leaseOwner))
            yield* say(
              `Batch ${batchId} is being run by another process (${Option.getOrElse(holder, () => "unknown")}); not starting a second runner. Try again when it ends.`
            )
            return resultOf(EXIT_INCOMPLETE, { batch_id: batchId, outcome: "busy: another runner holds the batch", exit_code: EXIT_INCOMPLETE }, "another runner holds the batch")
          }
          fence = held.value
          // Leaving cleanly: every POST of ours has ended, so our unknown rows no longer need our word (rule 5).
          yield* Effect.addFinalizer(() =>
            Effect.zipRight(store.batch(accountId, batchId).releaseIntents(owner), store.batch(accountId, batchId).releaseLease(owner)).pipe(Effect.ignore)
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
        const prescanAdopted = yield* Ref.make(0)
        const { finish } = yield* makeConclusion({ ctx, request, paths, startedAt, resumed: loaded.resumed, ledgerLock, prescanAdopted })
        if (!request.dryRun) {
          yield* loadAlarms(ctx)
          yield* keepLease(ctx, leaseTtl, leaseStart)
        }

        // Before any row is claimed: is any of it already paid (a lost, deleted or second store)?
        if (!request.dryRun) {
          const found = yield* preScan(ctx)
          yield* Ref.set(prescanAdopted, found.adopted)
        }

        const counts0 = yield* store.batch(accountId, batchId).countByState()
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
          const toPay = (yield* store.batch(accountId, batchId).countByState()).validated
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
        yield* store.batch(accountId, batchId).streamRowsInStates(["submitting"]).pipe(
          Stream.runForEach((r) =>
            writer.record({ idx: r.idx, from: ["submitting"], to: "unknown", source: "reconcile", detail: "found in submitting at start: the previous run stopped between intent and answer" })
          )
        )
        yield* store.batch(accountId, batchId).streamRowsInStates(IN_FLIGHT_STATES).pipe(
          Stream.runForEach((r) => (r.reference === null ? Effect.void : follow(ctx, r.idx, r.reference, false)))
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
        let lastReconcile = 0
        /** One turn of the run: send what can be sent, reconcile when due; says when to turn again. */
        const turn: Effect.Effect<"now" | "later" | "done", StoreError> = Effect.gen(function* () {
          if ((yield* Ref.get(ctx.stop)) !== undefined) return "done"
          yield* submitter.submitAll
          yield* writer.flush
          const t = yield* Clock.currentTimeMillis
          // Whether more rows are unknown than under alarm, without counting a big batch every tick.
          const alarmed = (yield* Ref.get(ctx.alarms)).size
          const unknown = (yield* store.batch(accountId, batchId).rowsInStates(["unknown"], { limit: alarmed + 1 })).length - alarmed
          if (unknown > 0 && t - lastReconcile >= reconcileEvery) {
            lastReconcile = t
            const r = yield* reconciler.round
            if (r.resent > 0 || r.adopted > 0) return "now"
          }
          // Under an account alarm nothing can be proven: the unknown rows wait for a person.
          const blocked = (yield* Ref.get(ctx.accountAlarm)) !== undefined
          if ((unknown <= 0 || blocked) && (yield* tracker.tracked) === 0) {
            // A last look for a second payout of any row resent in this run before the run ends.
            if (lastReconcile > 0 && !blocked) yield* reconciler.round
            return "done"
          }
          return "later"
        }).pipe(Effect.withSpan("Runner.turn"))
        // Turn again at once after a resend or an adoption (there may be more to do), else after a tick.
        const loop = turn.pipe(
          Effect.repeat(
            Schedule.recurWhile<"now" | "later" | "done">((next) => next !== "done").pipe(
              Schedule.addDelay((next) => (next === "later" ? TICK : Duration.zero))
            )
          )
        )
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
