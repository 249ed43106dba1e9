/**
 * A job's approval: a file put up for approval (`awaiting-approval/`), or paid as approved only while
 * it is still the approved batch and its approver one the policy allows (ApprovalGuard.ts checks again).
 */
import { Clock, DateTime, Effect, Either, Option, Schema } from "effect"
import { basename } from "node:path"
import { fileBatchId } from "../intake/FileBatchId.ts"
import { writeSummary } from "../output/Ledger.ts"
import { SharedPhonesHistory } from "../output/SummaryFile.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { type ApprovalFile, writeApproval } from "../output/ApprovalFile.ts"
import { type ApprovalPolicy, approverRefusal, currentWhat, watcherPolicy, whatDiffers } from "./Approval.ts"
import { approvedBatches, recordApproval } from "./ApprovalGuard.ts"
import { outputOf } from "../output/AtomicFile.ts"
import { moveBatch } from "./JobFolder.ts"
import { countsOf, errorsBeside, outcomeOf, pointSummaryAt, runAndFile } from "./JobFiling.ts"
import { JobOutcome } from "./JobOutcome.ts"
import type { JobSettings, RunFile } from "./JobSettings.ts"
import { JobNote, JobNotes, PolicyRefusal } from "./JobNotes.ts"
import { notify } from "../notify/Notifier.ts"
import { scanFile } from "./Scan.ts"
import type { BatchId } from "../domain/Ids.ts"

const ANYONE: ApprovalPolicy = { approvers: [], fourEyes: false, submittedBy: undefined }

/** Why a file is put up for approval again, and which batch (if any) it replaces. */
interface Again {
  readonly note: JobNote
  readonly supersedes?: string
}

export const awaitApproval = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: BatchId, again?: Again) =>
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

/** An approved file: paid only if it is still what was approved, by someone the policy allows. */
export const runApproved = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: BatchId, approval: ApprovalFile) =>
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
