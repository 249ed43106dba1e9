/**
 * One batch file in `processing/`, taken to its next place: run as `payouts run` would and moved
 * with its outputs to `done/` or `rejected/`; or, under approval, validated and preflighted and
 * moved to `awaiting-approval/`. A file whose run is incomplete (or paused) stays for a later pass;
 * one the service or the machine kept from running fails (ServiceProblem, or the cause) and stays too.
 *
 * A file paid under an approval is the approved batch: its id and control totals are checked here and
 * again as the run stores its rows (ApprovalGuard). A file edited after it was put up for approval, or
 * after approval, is put up for approval again as the new batch it is, and never paid under the old one.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Context, DateTime, Effect, Either, Option, Schema, Scope } from "effect"
import { basename } from "node:path"
import { EXIT_ATTENTION } from "../run/ExitCode.ts"
import { fileBatchId } from "../intake/Intake.ts"
import { writeSummary } from "../output/Ledger.ts"
import type { RunResult } from "../run/Runner.ts"
import { AlarmedRow, AlreadyPaid, amendSummary, SharedPhonesHistory } from "../output/SummaryFile.ts"
import type { Batch } from "../store/Model.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { isDeadLocalOwner } from "../run/Lease.ts"
import { type ApprovalFile, approvalOf, writeApproval } from "../output/ApprovalFile.ts"
import { type ApprovalPolicy, approverRefusal, currentWhat, watcherPolicy, whatDiffers } from "./Approval.ts"
import { approvedBatches, recordApproval } from "./ApprovalGuard.ts"
import { outputOf } from "../output/AtomicFile.ts"
import { type JobFolder, moveBatch } from "./JobFolder.ts"
import { type Counts, JobOutcome } from "./JobOutcome.ts"
import { tellWatch, WatchEvent } from "./WatchEvents.ts"
import { JobNote, JobNotes, PolicyRefusal } from "./JobNotes.ts"
import { FileChangedAfterTaken, guardFile, watchDuringRun } from "./FileGuard.ts"
import { RunHold } from "../run/Safeguards.ts"
import { changedSince, changeOf, fingerprintOf, recordTaken, takenOf } from "./TakenFile.ts"
import { FileChanged } from "../intake/FileBytes.ts"
import { notify } from "../notify/Notifier.ts"
import { type FeeRule, scanFile } from "./Scan.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export type RunFile<E, R> = (file: string, dryRun: boolean) => Effect.Effect<RunResult, E, R>

export interface JobSettings {
  readonly accountId: AccountId
  readonly folder: JobFolder
  readonly requireApproval: boolean
  readonly feePercent: FeeRule
  /** Who may approve (`--approvers`, `--four-eyes`, `--submitted-by`); default: anyone named. */
  readonly approval?: ApprovalPolicy
}

const ANYONE: ApprovalPolicy = { approvers: [], fourEyes: false, submittedBy: undefined }

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

const outcomeOf = (result: RunResult) => (typeof result.summary.outcome === "string" ? result.summary.outcome : "")

const countsOf = (result: RunResult): Counts =>
  Option.getOrElse(Schema.decodeUnknownOption(Schema.Record({ key: Schema.String, value: Schema.Number }))(result.summary.counts), () => ({}))

/** The batch's errors file beside the file where it now is, if it has one. */
const errorsBeside = (csv: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => {
    const errors = outputOf(csv, ".errors.csv")
    return Effect.map(fs.exists(errors), (exists) => (exists ? { errors } : {}))
  }).pipe(Effect.orElseSucceed(() => ({})))

/** After a move the summary names where the files now are. */
const pointSummaryAt = (csv: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const summary = outputOf(csv, ".summary.json")
    if (!(yield* fs.exists(summary))) return
    const fields: Record<string, string> = { file: csv }
    for (const [key, suffix] of [["ledger", ".ledger.csv"], ["report", ".report.html"], ["errors_file", ".errors.csv"]] as const) {
      const path = outputOf(csv, suffix)
      if (yield* fs.exists(path)) fields[key] = path
    }
    yield* amendSummary(summary, fields)
  }).pipe(Effect.catchAll((e) => tellWatch(WatchEvent.SummaryNotUpdated({ csv, error: String(e) }))))

/** Why a file is put up for approval again, and which batch (if any) it replaces. */
interface Again {
  readonly note: JobNote
  readonly supersedes?: string
}

const awaitApproval = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: BatchId, again?: Again) =>
  Effect.gen(function* () {
    const { folder } = settings
    const dry = yield* run(csv, true)
    // The service out of reach while checking: not the file's fault, it stays to be checked again.
    if (dry.outcome._tag === "Refused" && dry.outcome.cause === "service") {
      return JobOutcome.Incomplete({ batchId, exitCode: dry.exitCode, outcome: outcomeOf(dry) })
    }
    if (dry.outcome._tag !== "Finished") {
      yield* writeSummary(outputOf(csv, ".summary.json"), dry.summary)
      const moved = yield* moveBatch(csv, folder.processing, folder.rejected)
      yield* pointSummaryAt(moved)
      // A dry run tells nothing itself (`--notify`): the watcher says the file was rejected.
      yield* notify("batch.rejected", dry.summary)
      return JobOutcome.Rejected({ file: moved, batchId, exitCode: dry.exitCode, outcome: outcomeOf(dry), counts: countsOf(dry), ...(yield* errorsBeside(moved)) })
    }
    const plan = yield* scanFile(csv, settings.feePercent)
    const now = yield* Clock.currentTimeMillis
    const policy = settings.approval ?? ANYONE
    const note = again === undefined ? undefined : (yield* JobNotes).text(again.note)
    yield* writeApproval(outputOf(csv, ".approval.json"), {
      batch_id: batchId,
      file: basename(csv),
      status: "awaiting",
      submitted_at: DateTime.formatIso(DateTime.unsafeMake(now)),
      ...(policy.submittedBy === undefined ? {} : { submitted_by: policy.submittedBy }),
      ...(policy.approvers.length === 0 ? {} : { approvers: policy.approvers }),
      ...(policy.fourEyes ? { four_eyes: true } : {}),
      rows: plan.rows,
      currencies: plan.byCurrency,
      preflight: outcomeOf(dry),
      ...Option.match(Schema.decodeUnknownOption(SharedPhonesHistory)(dry.summary.shared_phones_history), {
        onNone: () => ({}),
        onSome: (history) => ({ shared_phones_history: history })
      }),
      ...(again?.supersedes === undefined ? {} : { supersedes: again.supersedes }),
      ...(note === undefined ? {} : { note })
    })
    const moved = yield* moveBatch(csv, folder.processing, folder.awaiting)
    yield* notify("batch.awaiting_approval", dry.summary)
    return JobOutcome.Awaiting({ file: moved, batchId, ...(note === undefined ? {} : { note }) })
  })

/** A batch only a person can settle (exit 5) goes to `attention/` with its outputs and a note of what to resolve. */
const needsPerson = (csv: string, folder: JobFolder, batchId: BatchId, result: RunResult) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const alarms = Option.getOrElse(Schema.decodeUnknownOption(Schema.Array(AlarmedRow))(result.summary.alarms), () => [])
    const account = typeof result.summary.account_alarm === "string" ? [`account: ${result.summary.account_alarm}`] : []
    const reasons = [
      ...account,
      ...alarms.map((a) => `line ${a.line}: ${a.reason ?? "alarm"}${a.references !== undefined && a.references.length > 0 ? ` (${a.references.join(", ")})` : ""}`)
    ]
    const note = (yield* JobNotes).text(JobNote.NeedsPerson({ batchId, file: csv, reasons }))
    yield* fs.writeFileString(outputOf(csv, ".attention.txt"), `${note}\n`, { mode: 0o600 })
    const moved = yield* moveBatch(csv, folder.processing, folder.attention)
    yield* pointSummaryAt(moved)
    return JobOutcome.Attention({ file: moved, batchId, reasons })
  })

/** Runs the file and moves it where its result says; `approver` binds the run to an approval. */
const runAndFile = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: BatchId, approval: Option.Option<ApprovalFile>) =>
  Effect.gen(function* () {
    const { folder } = settings
    const result = yield* run(csv, false)
    const outcome = outcomeOf(result)
    if (result.exitCode === EXIT_ATTENTION) return yield* needsPerson(csv, folder, batchId, result)
    const finished = result.outcome._tag === "Finished"
    // Only what is wrong in the file (its rows, or more than the wallet holds) rejects it; a service
    // that could not be used, or a person who said no, leaves it to be run again.
    const refused = result.outcome._tag === "Refused" && (result.outcome.cause === "invalid-file" || result.outcome.cause === "balance")
    if (!finished && !refused) return JobOutcome.Incomplete({ batchId, exitCode: result.exitCode, outcome })
    const fs = yield* FileSystem.FileSystem
    const summary = outputOf(csv, ".summary.json")
    if (Option.isSome(approval) && approval.value.status === "approved" && (yield* fs.exists(summary))) {
      const a = approval.value
      yield* amendSummary(summary, { approval: { by: a.approved_by ?? "", at: a.approved_at ?? "", ...(a.approved_what === undefined ? {} : { what: a.approved_what }) } })
    }
    const moved = yield* moveBatch(csv, folder.processing, finished ? folder.done : folder.rejected)
    yield* pointSummaryAt(moved)
    // A re-drop of a batch already paid: said in the watcher's log, not only in its summary.
    const paid = Schema.decodeUnknownOption(AlreadyPaid)(result.summary.already_paid)
    if (Option.isSome(paid)) yield* tellWatch(WatchEvent.AlreadyPaidAgain({ file: moved, batchId, paid: paid.value }))
    return finished
      ? JobOutcome.Done({ file: moved, batchId, exitCode: result.exitCode, counts: countsOf(result) })
      : JobOutcome.Rejected({ file: moved, batchId, exitCode: result.exitCode, outcome, counts: countsOf(result), ...(yield* errorsBeside(moved)) })
  })

/** An approved file: paid only if it is still what was approved, by someone the policy allows. */
const runApproved = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: BatchId, approval: ApprovalFile) =>
  Effect.gen(function* () {
    const what = approval.approved_what
    const by = approval.approved_by
    const policy = watcherPolicy(settings.approval ?? ANYONE, approval)
    const refusal = by === undefined || what === undefined ? PolicyRefusal.Unsigned() : approverRefusal(policy, by)
    if (refusal !== undefined || by === undefined || what === undefined) {
      return yield* awaitApproval(settings, run, csv, batchId, {
        note: JobNote.ApprovalRefused({ batchId, by, refusal: refusal ?? PolicyRefusal.Unsigned() })
      })
    }
    const now = yield* currentWhat(csv)
    const differs = whatDiffers(what, now)
    if (differs !== undefined) {
      return yield* awaitApproval(settings, run, csv, batchId, {
        supersedes: what.batch_id,
        note: JobNote.EditedAfterApproval({ file: csv, by, approvedBatch: what.batch_id, approvedAt: approval.approved_at, differs })
      })
    }
    const approver = { by, at: DateTime.toEpochMillis(DateTime.unsafeMake(approval.approved_at ?? 0)), what }
    const batch = yield* (yield* Batches).getBatch(settings.accountId, batchId)
    // A batch that exists already (a resumed run) is not created again: record its approval now.
    if (Option.isSome(batch) && batch.value.approvedBy === null) yield* recordApproval(settings.accountId, batchId, approver)
    const guard = yield* approvedBatches(settings.accountId, approver)
    const result = yield* runAndFile(settings, run, csv, batchId, Option.some(approval)).pipe(Effect.provideService(Batches, guard.batches), Effect.either)
    if (Either.isRight(result)) return result.right
    const changed = yield* guard.refused
    if (Option.isNone(changed)) return yield* Effect.fail(result.left)
    return yield* awaitApproval(settings, run, csv, yield* fileBatchId(csv), {
      supersedes: what.batch_id,
      note: JobNote.ChangedWhileStarting({ file: csv, change: changed.value, approvedBatch: what.batch_id, by })
    })
  })

/** A file that changed after the watcher took it: to `attention/` with what changed; not paid further. */
const changedFile = (csv: string, folder: JobFolder, batchId: BatchId, change: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const reason = `the file changed while it was read: ${change}`
    const note = (yield* JobNotes).text(JobNote.FileChanged({ batchId, file: csv, reason }))
    yield* fs.writeFileString(outputOf(csv, ".attention.txt"), `${note}\n`, { mode: 0o600 })
    const moved = yield* moveBatch(csv, folder.processing, folder.attention)
    yield* pointSummaryAt(moved)
    return JobOutcome.Attention({ file: moved, batchId, reasons: [reason] })
  })

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
