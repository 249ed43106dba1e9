/**
 * Where a job's file goes with its outputs once its run has said: `done/`, `rejected/` or `attention/`
 * (with a note), its summary pointed at where the files now are. Apart from Job.ts, which decides the run.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { EXIT_ATTENTION } from "../run/ExitCode.ts"
import type { RunResult } from "../run/RunRequest.ts"
import { AlarmedRow, AlreadyPaid, amendSummary } from "../output/SummaryFile.ts"
import type { ApprovalFile } from "../output/ApprovalFile.ts"
import { outputOf } from "../output/AtomicFile.ts"
import { type JobFolder, moveBatch } from "./JobFolder.ts"
import { type Counts, JobOutcome } from "./JobOutcome.ts"
import type { JobSettings, RunFile } from "./JobSettings.ts"
import { tellWatch, WatchEvent } from "./WatchEvents.ts"
import { JobNote, JobNotes } from "./JobNotes.ts"
import { changedWhileRead } from "./TakenFile.ts"
import type { BatchId } from "../domain/Ids.ts"

export const outcomeOf = (result: RunResult) => (typeof result.summary.outcome === "string" ? result.summary.outcome : "")

export const countsOf = (result: RunResult): Counts =>
  Option.getOrElse(Schema.decodeUnknownOption(Schema.Record({ key: Schema.String, value: Schema.Number }))(result.summary.counts), () => ({}))

/** The batch's errors file beside the file where it now is, if it has one. */
export const errorsBeside = (csv: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => {
    const errors = outputOf(csv, ".errors.csv")
    return Effect.map(fs.exists(errors), (exists) => (exists ? { errors } : {}))
  }).pipe(Effect.orElseSucceed(() => ({})))

/** After a move the summary names where the files now are. */
export const pointSummaryAt = (csv: string) =>
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
export const runAndFile = <E, R>(settings: JobSettings, run: RunFile<E, R>, csv: string, batchId: BatchId, approval: Option.Option<ApprovalFile>) =>
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

/** A file that changed after the watcher took it: to `attention/` with what changed; not paid further. */
export const changedFile = (csv: string, folder: JobFolder, batchId: BatchId, change: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const reason = changedWhileRead(change)
    const note = (yield* JobNotes).text(JobNote.FileChanged({ batchId, file: csv, reason }))
    yield* fs.writeFileString(outputOf(csv, ".attention.txt"), `${note}\n`, { mode: 0o600 })
    const moved = yield* moveBatch(csv, folder.processing, folder.attention)
    yield* pointSummaryAt(moved)
    return JobOutcome.Attention({ file: moved, batchId, reasons: [reason] })
  })
