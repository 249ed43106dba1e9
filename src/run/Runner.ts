/**
 * One batch run, end to end: intake, lease, preflight, recovery of an interrupted run, submission,
 * reconciliation and tracking until every row is final (or the run must stop), then the outputs.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Duration, Effect, Layer, Option, Queue } from "effect"
import { dirname } from "node:path"
import { intake } from "../intake/Intake.ts"
import { outputPaths } from "../output/AtomicFile.ts"
import { checkWritable } from "../output/OutputCheck.ts"
import { makeSummary, writeErrors, writeSummaryFile } from "../output/Outputs.ts"
import type { Fence } from "../store/Model.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { notify } from "../notify/Notifier.ts"
import type { EventType } from "../notify/Payload.ts"
import { dryRunOutcome } from "./BalanceCheck.ts"
import { EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_REFUSED } from "./ExitCode.ts"
import { holdLease, runnerName } from "./Lease.ts"
import { RunEvent, tell } from "./Notices.ts"
import { Progress } from "./Progress.ts"
import { Reconciler } from "./Reconciler.ts"
import { DEFAULT_LEASE_TTL_MS, RunContext, type RunContextInput } from "./RunContext.ts"
import { resultOf, type RunRequest, type RunResult } from "./RunRequest.ts"
import { runSteps } from "./RunSteps.ts"
import { Safeguards } from "./Safeguards.ts"
import { Submitter } from "./Submitter.ts"
import { Tracker } from "./Tracker.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import { startWebhookReceiver } from "./WebhookReceiver.ts"

export const runBatch = Effect.fn("Runner.run")(function* (request: RunRequest) {
    const batches = yield* Batches
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
      allowSharedPhone: request.allowSharedPhone === true,
      repeatWindow: request.repeatWindow,
      options: { skipInvalid: request.skipInvalid, allowRepeats: request.allowRepeats, ...(request.allowSharedPhone === true ? { allowSharedPhone: true } : {}) },
      dryRun: request.dryRun,
      ...(request.settings.safeguards?.guards === undefined ? {} : { guards: request.settings.safeguards.guards })
    })
    // Under `payouts watch` the errors file moves with the batch: the watcher says where it ends up.
    const errorsAt = request.outputsMoved === true ? undefined : paths.errors
    if (loaded._tag === "Refused") {
      yield* writeErrors(paths, loaded.errors)
      // validate's verdict, like its OK: the file as it is would be refused whole. Under
      // --log-format json the refusal's facts are fields of its records, as in its summary.
      yield* Effect.annotateLogs(
        Effect.zipRight(
          tell(RunEvent.RowErrors({ errors: loaded.errors, file: request.file, errorsFile: errorsAt })),
          tell(RunEvent.FileRefused({ dryRun: request.dryRun, errorsFile: errorsAt }))
        ),
        { exit_code: EXIT_REFUSED, counts: { rejected: loaded.rows } }
      )
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
        yield* tell(RunEvent.InvalidRowsSkipped({ count: loaded.errors.length, dryRun: true, errorsFile: errorsAt }))
      }
      return yield* dryRunOutcome(request, loaded, startedAt)
    }
    const batchId = loaded.batch.batchId
    if (loaded.errors.length > 0) {
      yield* writeErrors(paths, loaded.errors)
      yield* tell(RunEvent.InvalidRowsSkipped({ count: loaded.errors.length, dryRun: false, errorsFile: errorsAt }))
    }
    // validate resumes nothing: it checks the file again, whatever an earlier run of it left.
    if (loaded.resumed && !request.dryRun) yield* tell(RunEvent.Resuming({ batchId }))
    if (!request.dryRun) {
      // Before the first payout: a ledger that cannot be written must not be found out after paying.
      const rows = Object.values(yield* batches.countByState(accountId, batchId)).reduce((a, b) => a + b, 0)
      const problems = yield* checkWritable({ outDir: dirname(paths.ledger), statePath: request.statePath, rows })
      if (problems.length > 0) {
        yield* tell(RunEvent.OutputsUnwritable({ problems }))
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
          const held = yield* holdLease(accountId, batchId, owner, leaseTtl)
          if (Option.isNone(held)) {
            const batch = yield* batches.getBatch(accountId, batchId)
            const holder = Option.flatMap(batch, (b) => Option.fromNullable(b.leaseOwner))
            yield* tell(RunEvent.LeaseBusy({ batchId, holder: Option.getOrUndefined(holder) }))
            return resultOf(EXIT_INCOMPLETE, { batch_id: batchId, outcome: "busy: another runner holds the batch", exit_code: EXIT_INCOMPLETE }, "another runner holds the batch")
          }
          fence = held.value
        }
        const wakeups = yield* Queue.unbounded<string>()
        let settings = request.settings
        if (request.listen !== undefined && !request.dryRun) {
          const receiver = yield* startWebhookReceiver(request.listen, wakeups)
          // A wildcard is no address the service can post to: only an explicit callback URL is sent then.
          const callbackUrl = settings.callbackUrl ?? (receiver.everyInterface ? undefined : receiver.url)
          yield* tell(RunEvent.WebhookListening({ url: receiver.url, everyInterface: receiver.everyInterface, callbackUrl }))
          settings = { ...settings, callbackUrl, webhooks: true }
        }
        const run = runSteps({ request, loaded, paths, startedAt, leaseTtl, leaseStart }).pipe(Effect.onInterrupt(() => (request.dryRun ? Effect.void : interruptedEarly)))
        return yield* run.pipe(Effect.provide(runLayer({ accountId, batchId, settings, fence, wakeups })))
      })
    )
  },
  // `--notify`: a real run's end is told (queued, never waited for); a dry run tells nothing.
  (run, request) => (request.dryRun ? run : Effect.tap(run, notifyEnd))
)

/**
 * A stop before the run began sending (the pre-scan, the preflight, the question): nothing was
 * claimed yet, or what was is released now. A stop while sending is concluded by the run's loop.
 */
const interruptedEarly = Effect.gen(function* () {
  const submitter = yield* Submitter
  if (yield* submitter.stopped) return
  const released = yield* submitter.stopSending
  yield* tell(RunEvent.InterruptedEarly({ released }))
}).pipe(Effect.ignore)

/** The notification a run's end calls for: none when it is left to run again (incomplete, a failure of the service or the machine). */
const eventOf = (result: RunResult): EventType | undefined => {
  if (result.outcome._tag === "Attention") return "batch.alarm"
  if (typeof result.summary.paused === "string") return "batch.paused"
  if (result.outcome._tag === "Finished") return "batch.done"
  if (result.outcome._tag === "Refused" && (result.outcome.cause === "invalid-file" || result.outcome.cause === "balance")) return "batch.rejected"
  return undefined
}

const notifyEnd = (result: RunResult) => {
  const event = eventOf(result)
  return event === undefined ? Effect.void : notify(event, result.summary)
}

/**
 * One run's services, built for it and closed with it: its context, safeguards, row writer, tracker,
 * submitter, reconciler and progress. They need the store's narrow services and the payment client.
 */
export const runLayer = (input: RunContextInput) =>
  Layer.mergeAll(Reconciler.Default, Progress.Default).pipe(
    Layer.provideMerge(Submitter.Default),
    Layer.provideMerge(Tracker.Default),
    Layer.provideMerge(TransitionWriter.Default),
    Layer.provideMerge(Safeguards.Default),
    Layer.provideMerge(RunContext.layer(input))
  )
