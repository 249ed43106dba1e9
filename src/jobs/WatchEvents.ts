/**
 * What the watcher tells the daemon's log, as typed facts: the jobs emit them, the command line words
 * them into log lines (src/cli/WatchText.ts), as the run's notices are (run/Notices.ts).
 */
import { type Cause, Context, Data, Effect } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import type { AlreadyPaid } from "../output/SummaryFile.ts"
import type { Halt } from "../store/AccountModel.ts"
import type { JobOutcome } from "./JobOutcome.ts"
import type { JobProblem } from "./JobProblem.ts"

export type WatchEvent = Data.TaggedEnum<{
  /** A job ended (`csv`: its file in processing/); a pause is told once per reason. */
  JobEnded: { readonly csv: string; readonly outcome: JobOutcome; readonly jobsFlag: string }
  /** A file of processing/ gone before its job could start or end: another worker has it. */
  TakenElsewhere: { readonly name: string }
  /** The service or the machine kept a file from running: it stays in processing/. */
  Kept: { readonly problem: JobProblem }
  HeartbeatUnwritten: { readonly error: string }
  /** Files ready while `--schedule` is closed (each told once). */
  WaitingForSchedule: { readonly names: ReadonlyArray<string>; readonly nextRun: Date; readonly timeZone: string }
  ScheduledTime: { readonly claimed: number; readonly nextRun: Date; readonly timeZone: string }
  AccountHalted: { readonly halt: Halt }
  /** A ready file taken into processing/ as `path` (`why`: it could not keep its name). */
  Claimed: { readonly name: string; readonly path: string; readonly why: string | undefined }
  ScanFailed: { readonly cause: Cause.Cause<unknown> }
  /** A job's file ended under another name than it was dropped with. */
  Renamed: { readonly droppedAs: string; readonly file: string; readonly why: ReadonlyArray<string> }
  RenameUnnoted: { readonly file: string; readonly error: string }
  SummaryNotUpdated: { readonly csv: string; readonly error: string }
  /** A re-drop of a batch already paid. */
  AlreadyPaidAgain: { readonly file: string; readonly batchId: BatchId; readonly paid: AlreadyPaid }
}>

export const WatchEvent = Data.taggedEnum<WatchEvent>()

/** Without the command line's wording (a test's watcher), each fact is logged by its tag and fields. */
export class WatchLog extends Context.Reference<WatchLog>()("jobs/WatchLog", {
  defaultValue: () => ({
    tell: (event: WatchEvent): Effect.Effect<void> => {
      const { _tag, ...fields } = event
      return Effect.logInfo(_tag).pipe(Effect.annotateLogs(fields))
    }
  })
}) {}

export const tellWatch = (event: WatchEvent): Effect.Effect<void> => Effect.flatMap(WatchLog, (log) => log.tell(event))
