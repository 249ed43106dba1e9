/**
 * The end of a run: the final counts, the exit code, the summary, the batch marked done, and the
 * outputs (ledger, summary, report) written, retried while they cannot be, else exit 4.
 */
import { SystemError } from "@effect/platform/Error"
import { Duration, Effect, Option, Ref, Schedule } from "effect"
import type { Semaphore } from "effect/Effect"
import { describeWriteError, type OutputPaths } from "../output/AtomicFile.ts"
import { retryLineage } from "../intake/RetryLineage.ts"
import { type PhoneFindings, sharedPhoneFields } from "../intake/SharedPhones.ts"
import { makeSummary, totalsByCurrency, writeLedgerFromStore, writeSummaryFile } from "../output/Outputs.ts"
import { alreadyPaidOf, type EarlierRun, makeAlreadyPaidTally, withAlreadyPaid } from "../output/AlreadyPaid.ts"
import { makeReportTally, reportPath, writeReportOf } from "../output/Report.ts"
import { userFormat } from "../output/Format.ts"
import type { Summary } from "../output/SummaryFile.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { EXIT_ATTENTION, EXIT_FINISHED_WITH_FAILURES, EXIT_INTERNAL, EXIT_OK, exitCodeFor } from "./ExitCode.ts"
import { ended, RunEvent, tell } from "./Notices.ts"
import { type IncompleteReason, outcomeFor, type RefusalCause } from "./Outcome.ts"
import { RunContext } from "./RunContext.ts"
import { resultOf, type RunRequest, type RunResult } from "./RunRequest.ts"
import { concludeSafeguards } from "./SafeguardsSummary.ts"
import { TransitionWriter } from "./TransitionWriter.ts"

export interface ConclusionInput {
  readonly request: RunRequest
  readonly paths: OutputPaths
  readonly startedAt: number
  /** The batch existed before this run: a dry run must not delete it. */
  readonly resumed: boolean
  /** One ledger write at a time: a periodic write of an older snapshot must not land after the final one. */
  readonly ledgerLock: Semaphore
  /** Rows the pre-scan found already paid and adopted. */
  readonly prescanAdopted: Ref.Ref<number>
  /** What this run's intake found of shared phones (none on a resume). */
  readonly phones?: PhoneFindings | undefined
}

export const makeConclusion = (input: ConclusionInput) =>
  Effect.gen(function* () {
    const ctx = yield* RunContext
    const writer = yield* TransitionWriter
    const [batches, reads] = yield* Effect.all([Batches, Rows])
    const { ledgerLock, paths, request, startedAt } = input
    const { accountId, batchId } = ctx
    // A batch already done before this run is the same content run again (a copy, a re-drop): its
    // earlier run paid every paid row, this one pays nothing (output/AlreadyPaid.ts).
    const earlier: EarlierRun | undefined = Option.match(yield* batches.getBatch(accountId, batchId), {
      onNone: () => undefined,
      onSome: (b) => (b.state === "done" ? { batchId: b.batchId, file: b.fileName } : undefined)
    })
    const feeRule = request.settings.feePercent
    // Ledger, summary and report, retried with backoff while they cannot be written (a full disk
    // being cleaned up, a share coming back), then given up on: exit 4, the store has it all.
    // The summary written (and answered) is the one without the rows another batch paid.
    const writeOutputs = (summary: Summary) =>
      Effect.gen(function* () {
        // The report's and the already-paid figures from the ledger's pass over the rows: one read of the batch.
        const tally = makeReportTally(yield* userFormat)
        const paid = makeAlreadyPaidTally(earlier, feeRule)
        yield* ledgerLock.withPermits(1)(writeLedgerFromStore(paths, accountId, batchId, (row) => {
          tally.add(row)
          paid.add(row)
        }))
        const final = withAlreadyPaid(summary, yield* paid.result(accountId))
        yield* writeSummaryFile(paths, final)
        yield* writeReportOf(reportPath(paths), final, tally).pipe(
          Effect.catchIf((e) => !(e instanceof SystemError), (e) => tell(RunEvent.ReportUnwritten({ error: String(e) })))
        )
        return final
      }).pipe(
        Effect.tapError((e) => tell(RunEvent.OutputsRetrying({ why: describeWriteError(e) }))),
        Effect.retry(
          Schedule.exponential("500 millis").pipe(
            Schedule.union(Schedule.spaced("10 seconds")),
            Schedule.upTo(request.outputRetry ?? Duration.minutes(2))
          )
        )
      )
    const finish = Effect.fn("Run.conclude")(function* (outcome: string, forced?: number, cause?: RefusalCause) {
        yield* writer.flush
        const counts = yield* batches.countByState(accountId, batchId)
        const alarms = yield* Ref.get(ctx.alarms)
        const accountAlarm = yield* Ref.get(ctx.accountAlarm)
        const needsPerson = alarms.size > 0 || (accountAlarm !== undefined && counts.unknown > 0)
        const exitCode = forced ?? (needsPerson ? EXIT_ATTENTION : exitCodeFor(counts, false))
        if (needsPerson && !request.dryRun) {
          yield* tell(RunEvent.PersonMustAct({ batchId, alarms: alarms.size, accountAlarm }))
        }
        const guarded = yield* concludeSafeguards(counts, !request.dryRun)
        const alarmRows = yield* Effect.forEach([...alarms.entries()], ([idx, alarm]) =>
          Effect.map(reads.getRow(accountId, batchId, idx), (row) => ({
            line: Option.match(row, { onNone: () => 0, onSome: (r) => r.line }),
            reason: alarm.reason,
            references: alarm.references
          }))
        )
        const adopted = yield* Ref.get(input.prescanAdopted)
        const { parent } = yield* retryLineage(accountId, batchId)
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
            ...(adopted > 0 ? { already_paid_adopted: adopted } : {}),
            ...(parent === undefined ? {} : { parent }),
            ...sharedPhoneFields(request.allowSharedPhone === true, input.phones),
            ...guarded.extra
          }
        })
        // Every row final (exit 0 or 1): the batch is done, and `payouts batches` says so.
        if (!request.dryRun && (exitCode === EXIT_OK || exitCode === EXIT_FINISHED_WITH_FAILURES) && guarded.paused === undefined) {
          yield* batches.setBatchState(accountId, batchId, "done")
        }
        if (request.dryRun) {
          // A dry run leaves no trace, but never touches a batch an earlier run created.
          if (!input.resumed) yield* batches.deleteBatch(accountId, batchId)
          return resultOf(exitCode, summary, String(summary.outcome), cause)
        }
        const written = yield* writeOutputs(summary).pipe(Effect.either)
        if (written._tag === "Left") {
          // Every payout is in the store: the outputs can be written again at any time.
          const why = describeWriteError(written.left)
          yield* tell(RunEvent.OutputsFailed({ batchId, why }))
          const unwritten = yield* alreadyPaidApart(summary)
          return resultOf(EXIT_INTERNAL, { ...unwritten, exit_code: EXIT_INTERNAL, outputs_error: why }, why)
        }
        const final = written.right
        const reason: IncompleteReason =
          "halted" in guarded.extra ? "halted"
          : guarded.paused !== undefined ? "paused"
          : cause === "declined" ? "declined"
          : outcome === "interrupted" ? "interrupted"
          : outcome.startsWith("stopped:") ? "stopped"
          : "waiting"
        const result: RunResult = { outcome: outcomeFor(exitCode, String(final.outcome), cause, reason), exitCode, summary: final }
        yield* ended(result)
        return result
      })
    /** The summary without the rows another batch paid, from a pass of its own (when the outputs could not be written). */
    const alreadyPaidApart = (summary: Summary) =>
      Effect.map(alreadyPaidOf(accountId, batchId, earlier, feeRule), (figures) => withAlreadyPaid(summary, figures)).pipe(Effect.orElseSucceed(() => summary))
    return { finish, writeOutputs }
  })
