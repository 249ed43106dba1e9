/**
 * One batch file in `processing/`, taken to its next place: run as `payouts run` would and moved
 * with its outputs to `done/` or `rejected/` (JobFiling.ts); or, under approval, validated and
 * preflighted and moved to `awaiting-approval/` (JobApproval.ts). A file whose run is incomplete (or
 * paused) stays for a later pass; one the service or the machine kept from running fails
 * (ServiceProblem, or the cause) and stays too.
 *
 * A file paid under an approval is the approved batch: its id and control totals are checked
 * (JobApproval.ts) and again as the run stores its rows (ApprovalGuard). A file edited after it was
 * put up for approval, or after approval, is put up for approval again as the new batch it is, and
 * never paid under the old one.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Context, DateTime, Effect, Option, Scope } from "effect"
import type { Batch } from "../store/Model.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { isDeadLocalOwner } from "../run/Lease.ts"
import { approvalOf } from "../output/ApprovalFile.ts"
import { awaitApproval, runApproved } from "./JobApproval.ts"
import { changedFile, runAndFile } from "./JobFiling.ts"
import { JobOutcome } from "./JobOutcome.ts"
import type { JobSettings, RunFile } from "./JobSettings.ts"
import { JobNote } from "./JobNotes.ts"
import { FileChangedAfterTaken, guardFile, watchDuringRun } from "./FileGuard.ts"
import { RunHold } from "../run/Safeguards.ts"
import { changedSince, changeOf, fingerprintOf, recordTaken, takenOf } from "./TakenFile.ts"
import { FileChanged } from "../intake/FileBytes.ts"
import type { BatchId } from "../domain/Ids.ts"

/**
 * The live owner of the batch's lease, when another process holds it unexpired (by this machine's
 * clock: the runner's own lease acquisition, on the store's clock, is what decides; this only spares
 * a worker starting a run that would find the batch taken).
 */
const leasedElsewhere = (batch: Batch) =>
  Effect.map(Clock.currentTimeMillis, (now) =>
    batch.leaseOwner !== null &&
    batch.leaseExpiresAt !== null &&
    DateTime.toEpochMillis(batch.leaseExpiresAt) > now &&
    !isDeadLocalOwner(batch.leaseOwner)
      ? Option.some(batch.leaseOwner)
      : Option.none<string>()
  )

/**
 * The file as the watcher took it (one put in `processing/` by hand: as it is at its first look) is
 * looked at again before the job, once the run has read its rows, and after every run: one that
 * changed meanwhile goes to `attention/`, whatever its run did with the rows it had read.
 */
export const processJob = <E, R>(settings: JobSettings, runFile: RunFile<E, R>, csv: string) =>
  Effect.gen(function* () {
    const recorded = yield* takenOf(csv)
    const now = yield* fingerprintOf(csv)
    if (Option.isNone(recorded)) yield* recordTaken(csv, now)
    const taken = Option.getOrElse(recorded, () => now)
    const change = changeOf(taken, now)
    if (change !== undefined) return yield* changedFile(csv, settings.folder, taken.batchId, change)
    const guard = yield* guardFile(csv, taken)
    const fs = yield* FileSystem.FileSystem
    const watch = Effect.provideService(watchDuringRun(csv, taken), FileSystem.FileSystem, fs)
    const run: RunFile<E | FileChangedAfterTaken, R> = (file, dryRun) =>
      Effect.acquireUseRelease(
        Scope.make(),
        (scope) =>
          Effect.flatMap(Scope.extend(watch, scope), (hold) =>
            Effect.mapInputContext(runFile(file, dryRun), (context: Context.Context<R>) => Context.add(context, RunHold, hold)))
        ,
        (scope, exit) => Scope.close(scope, exit)
      ).pipe(Effect.tap(() => guard.check))
    return yield* jobOf(settings, run, csv, taken.batchId).pipe(
      Effect.provideService(Batches, guard.batches),
      Effect.catchAll((error) =>
        Effect.gen(function* () {
          const change =
            error instanceof FileChangedAfterTaken
              ? Option.some(error.change)
              : error instanceof FileChanged
                // The intake saw two reads differ; the file as it is now says how (grown, cut, replaced).
                ? Option.orElseSome(yield* changedSince(csv, taken), () => "it was written to while the run read it (its content hash differs between two reads)")
                : yield* guard.changed
          return Option.isSome(change) ? yield* changedFile(csv, settings.folder, taken.batchId, change.value) : yield* Effect.fail(error)
        })
      )
    )
  })

const jobOf = <E, R>(settings: JobSettings, runFile: RunFile<E, R>, csv: string, batchId: BatchId) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    // The run's own messages (log records under --log-format json) carry which batch and file as
    // fields, as the watcher's end-of-job lines do, not only inside their text.
    const run: RunFile<E, R> = (file, dryRun) => Effect.annotateLogs(runFile(file, dryRun), { batch_id: batchId, file })
    const batch = yield* batches.getBatch(settings.accountId, batchId)
    if (Option.isSome(batch) && batch.value.state === "paused") {
      return JobOutcome.Held({ batchId, reason: batch.value.pauseReason ?? "paused" })
    }
    const holder = Option.isSome(batch) ? yield* leasedElsewhere(batch.value) : Option.none<string>()
    if (Option.isSome(holder)) return JobOutcome.Busy({ batchId, owner: holder.value })
    const approval = yield* approvalOf(csv)
    // A file that came through approval keeps needing it, whatever this watcher's settings.
    if (!settings.requireApproval && Option.isNone(approval)) return yield* runAndFile(settings, run, csv, batchId, approval)
    if (Option.isSome(approval) && approval.value.batch_id !== batchId) {
      const old = approval.value
      return yield* awaitApproval(settings, run, csv, batchId, {
        supersedes: old.batch_id,
        note: JobNote.EditedAfterRequest({ file: csv, previousBatch: old.batch_id, approved: old.status === "approved", approvedBy: old.approved_by, batchId })
      })
    }
    if (Option.isSome(approval) && approval.value.status === "approved") return yield* runApproved(settings, run, csv, batchId, approval.value)
    // Not approved: a batch already started (before approval was required) resumes; a new one waits.
    if (Option.isSome(batch)) return yield* runAndFile(settings, run, csv, batchId, approval)
    return yield* awaitApproval(settings, run, csv, batchId)
  })
