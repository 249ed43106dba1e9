/**
 * `payouts validate` of a new file, and the watcher's dry run: the intake of `payouts run`
 * (IntakeRows.ts) with every check, its rows kept only as the totals the preflight needs, nothing
 * written to the store.
 */
import { Effect, Either, Stream } from "effect"
import { type CrossBatchSettings, makeCrossBatch } from "./CrossBatch.ts"
import { csvFileErrorRows, isCsvFileError } from "./CsvErrors.ts"
import { Intake } from "./IntakeResult.ts"
import { dryRunResult, type FileCheckInput, intakeRows, type OtherBatches, payable, releaseRows } from "./IntakeRows.ts"
import { PendingColumns } from "./PendingColumns.ts"

export interface DryRunInput extends FileCheckInput, CrossBatchSettings {}

/** A file's checks, nothing stored; `others.open` runs at most once. */
export const checkFile = <E, R>(input: FileCheckInput, others: OtherBatches<E, R>) =>
  Effect.gen(function* () {
    const { rows, tally } = yield* intakeRows(input, others)
    const pending = new PendingColumns()
    let rejected = 0
    const read = yield* rows.pipe(
      Stream.runForEach((group) =>
        Effect.sync(() => {
          group.rows.forEach((row, i) => {
            if (payable(group, i) && row._tag === "ValidRow") pending.push(row.index, row.currency, row.amountMinor)
            else rejected++
          })
          releaseRows(group)
        })
      ),
      Effect.either
    )
    if (Either.isLeft(read)) {
      const error = read.left
      if (!isCsvFileError(error)) return yield* Effect.fail(error)
      return Intake.Refused({ batchId: input.batchId, errors: csvFileErrorRows(error), rows: tally.rows })
    }
    return dryRunResult(input, tally, pending, rejected)
  }).pipe(Effect.withSpan("Intake.checkFile"))

/** `payouts run`'s dry run (the watcher's): every row asked of the store in context. */
export const dryRun = (input: DryRunInput) => checkFile(input, { open: makeCrossBatch(input), ownFirst: false })
