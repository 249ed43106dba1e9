/**
 * The daemon's log lines: the watcher's facts (jobs/WatchEvents.ts) worded, each at its level and
 * with the fields a log search needs (batch id, file, exit code), as `payouts watch` writes them.
 */
import { Cause, Effect, Layer } from "effect"
import { basename } from "node:path"
import { type ScheduleError, shownIn } from "../jobs/CronGate.ts"
import type { JobOutcome } from "../jobs/JobOutcome.ts"
import { type WatchEvent, WatchLog } from "../jobs/WatchEvents.ts"
import { describeAlreadyPaid } from "../output/AlreadyPaid.ts"
import { userFormat } from "../output/Format.ts"
import { jobProblemText } from "./ServiceText.ts"

/** Why `--schedule` or `--timezone` is refused (exit 2). */
export const scheduleErrorText = ({ problem }: ScheduleError): string =>
  problem._tag === "Expression"
    ? `--schedule "${problem.expression}": ${problem.detail}`
    : `--timezone "${problem.zone}" is not a time zone: give an IANA name such as Africa/Douala or UTC`

const jobEnded = (csv: string, outcome: JobOutcome, jobsFlag: string): Effect.Effect<void> => {
  switch (outcome._tag) {
    case "Done":
      return Effect.logInfo(`done (exit ${outcome.exitCode}): ${outcome.file}`).pipe(
        Effect.annotateLogs({ batch_id: outcome.batchId, file: outcome.file, exit_code: outcome.exitCode, counts: outcome.counts })
      )
    case "Rejected":
      return Effect.logWarning(`rejected (${outcome.outcome}): ${outcome.file}${outcome.errors === undefined ? "" : `; errors in ${outcome.errors}`}`).pipe(
        Effect.annotateLogs({
          batch_id: outcome.batchId,
          file: outcome.file,
          exit_code: outcome.exitCode,
          counts: outcome.counts,
          ...(outcome.errors === undefined ? {} : { errors_file: outcome.errors })
        })
      )
    case "Awaiting":
      return Effect.zipRight(
        outcome.note === undefined ? Effect.void : Effect.logError(outcome.note),
        Effect.logInfo(`awaiting approval: ${outcome.file}; approve with: payouts approve ${outcome.batchId}${jobsFlag} --by NAME`).pipe(
          Effect.annotateLogs({ batch_id: outcome.batchId, file: outcome.file })
        )
      )
    case "Busy":
      return Effect.logDebug(
        `another worker has it (${outcome.owner !== undefined ? `run by ${outcome.owner}` : `another worker runs a batch in ${(outcome.currencies ?? []).join(", ")}`}): looked at again next scan`
      )
    case "Held":
      return Effect.logWarning(`paused (${outcome.reason}); resume with: payouts resume ${outcome.batchId}${jobsFlag}`).pipe(
        Effect.annotateLogs({ batch_id: outcome.batchId, file: csv })
      )
    case "Attention":
      return Effect.logError(
        `needs a person (exit 5): ${outcome.file}; ${outcome.reasons.slice(0, 5).join("; ")}${outcome.reasons.length > 5 ? "; ..." : ""}. See: payouts resolve ${outcome.batchId}${jobsFlag}`
      ).pipe(Effect.annotateLogs({ batch_id: outcome.batchId, file: outcome.file, exit_code: 5 }))
    case "Incomplete":
      return Effect.logWarning(`incomplete (exit ${outcome.exitCode}, ${outcome.outcome}): kept in processing/, tried again later`).pipe(
        Effect.annotateLogs({ batch_id: outcome.batchId, file: csv, exit_code: outcome.exitCode })
      )
  }
}

export const watchLogLine = (event: WatchEvent): Effect.Effect<void> => {
  switch (event._tag) {
    case "JobEnded":
      return jobEnded(event.csv, event.outcome, event.jobsFlag)
    case "TakenElsewhere":
      return Effect.logInfo(`no longer in processing/ (another worker took it on): ${event.name}`)
    case "Kept":
      return event.problem.kind === "service"
        ? Effect.logWarning(`kept in processing/, not rejected: ${jobProblemText(event.problem)}; tried again with backoff`)
        : Effect.logError(`kept in processing/ (internal failure): ${jobProblemText(event.problem)}; tried again with backoff`)
    case "HeartbeatUnwritten":
      return Effect.logWarning(`this worker's heartbeat could not be written: ${event.error}`)
    case "WaitingForSchedule":
      return Effect.logInfo(`${event.names.join(", ")}: waiting for the schedule, next run ${shownIn(event.nextRun, event.timeZone)}`)
    case "ScheduledTime":
      return Effect.logInfo(`scheduled time: ${event.claimed} file(s) taken; next run ${shownIn(event.nextRun, event.timeZone)}`)
    case "AccountHalted":
      return Effect.logWarning(`the account is halted by ${event.halt.by}: ${event.halt.reason}; no new payout leaves until payouts halt --lift`)
    case "Claimed":
      return Effect.logInfo(`claimed ${event.name} -> ${event.path}${event.why === undefined ? "" : ` (${event.why})`}`)
    case "ScanFailed":
      return Effect.logError(`scan failed: ${Cause.pretty(event.cause)}`)
    case "Renamed":
      return Effect.logWarning(`${event.droppedAs} is filed as ${basename(event.file)}: ${event.why.join("; ")}`).pipe(
        Effect.annotateLogs({ file: event.file, dropped_as: event.droppedAs })
      )
    case "RenameUnnoted":
      return Effect.logWarning(`the new name of ${basename(event.file)} could not be noted in its summary: ${event.error}`)
    case "SummaryNotUpdated":
      return Effect.logWarning(`summary of ${basename(event.csv)} not updated: ${event.error}`)
    case "AlreadyPaidAgain":
      // Worded in the user's locale as it is when the event happens.
      return Effect.flatMap(userFormat, (format) =>
        Effect.logWarning(`${basename(event.file)}: ${describeAlreadyPaid(event.paid, format.decimal)}`).pipe(
          Effect.annotateLogs({ batch_id: event.batchId, file: event.file, already_paid: event.paid.rows })
        )
      )
  }
}

/** `payouts watch` words the watcher's facts as its log lines. */
export const WatchLogLive = Layer.succeed(WatchLog, { tell: watchLogLine })
