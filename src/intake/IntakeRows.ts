/**
 * The one intake: a file's checked rows (Validate.ts) in groups, each row with what the account's
 * other batches and the guards add to it (CrossBatch.ts), tallied as they pass. `payouts run` stores
 * what it yields (Intake.ts); `payouts validate` and the watcher's dry run only keep the totals (DryRun.ts).
 */
import { Effect, Stream } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import { parseCsvFile } from "./Csv.ts"
import type { makeCrossBatch } from "./CrossBatch.ts"
import { Intake } from "./IntakeResult.ts"
import type { PendingColumns } from "./PendingColumns.ts"
import type { RowError } from "./RowError.ts"
import { makeHistoryList, SharedPhones } from "./SharedPhones.ts"
import { checkedGroups } from "./Validate.ts"
import type { CheckedRow } from "./CheckRecord.ts"

/** For each row of a group, what the account's other batches and the guards add to it (CrossBatch.ts). */
export type CrossBatchCheck = Effect.Effect.Success<ReturnType<typeof makeCrossBatch>>
export type CrossBatchError = Effect.Effect.Error<ReturnType<CrossBatchCheck>>

/**
 * Where the cross-batch check comes from, opened at most once. `ownFirst` (`payouts validate`): a
 * file with a row invalid on its own (without --skip-invalid) is refused on its own errors alone and
 * the other batches are not asked from then on, so a file refused at intake needs neither the service
 * (which tells the account) nor the store. The errors the other batches added to earlier rows are
 * then left out too: what is listed does not depend on where the first invalid row is.
 */
export interface OtherBatches<E, R> {
  readonly open: Effect.Effect<CrossBatchCheck, E, R>
  readonly ownFirst: boolean
}

/** What the intake needs to read a file. */
export interface FileCheckInput {
  readonly batchId: BatchId
  readonly allowRepeats: boolean
  /** Accept one phone paid under several names (SharedPhones.ts); default: refused. */
  readonly allowSharedPhone?: boolean
  readonly file: string
  readonly fileName: string
  readonly skipInvalid: boolean
}

/** A group of the file's rows and, for each, what the other batches and the guards add to its own errors. */
export interface TalliedGroup {
  readonly rows: ReadonlyArray<CheckedRow>
  readonly extras: ReadonlyArray<ReadonlyArray<RowError>>
}

/** Whether row i of a group would be paid: valid on its own, in its file, and against the other batches. */
export const payable = (group: TalliedGroup, i: number): boolean => group.rows[i]._tag === "ValidRow" && group.extras[i].length === 0

/**
 * Empties a group's array once its consumer has read it, so its rows die young (Validate.ts
 * `checkedGroups` says why). The array is the group's own; nothing reads it afterwards.
 */
export const releaseRows = (group: TalliedGroup): void => {
  ;(group.rows as Array<CheckedRow>).length = 0
}

/** What a dry run of a new file gives: refused, or checked (nothing stored either way). */
export type DryRunResult = Extract<Intake, { readonly _tag: "Refused" | "Checked" }>

/** Rows per group asked of the store. */
const GROUP = 500

const NONE: ReadonlyArray<RowError> = []

const makeTally = <E, R>(input: FileCheckInput, others: OtherBatches<E, R>, phones: SharedPhones) => {
  const history = makeHistoryList()
  const errors: Array<RowError> = []
  // The errors the other batches added (few): left out of a file refused on its own errors (ownFirst).
  const added = new Set<RowError>()
  let rows = 0
  let invalidAlone = false
  let check: CrossBatchCheck | undefined
  const refusedAlone = () => others.ownFirst && invalidAlone && !input.skipInvalid

  const opened: Effect.Effect<CrossBatchCheck, E, R> = Effect.suspend(() =>
    check === undefined ? Effect.tap(others.open, (c) => Effect.sync(() => void (check = c))) : Effect.succeed(check)
  )

  const count = (group: ReadonlyArray<CheckedRow>, extras: ReadonlyArray<ReadonlyArray<RowError>>): TalliedGroup => {
    group.forEach((row, i) => {
      const extra = extras[i]
      for (const e of extra) added.add(e)
      if (row._tag === "RejectedRow") for (const e of row.errors) errors.push(e)
      for (const e of extra) errors.push(e)
    })
    rows += group.length
    return { rows: group, extras }
  }

  const add = (group: ReadonlyArray<CheckedRow>): Effect.Effect<TalliedGroup, E | CrossBatchError, R> => {
    if (others.ownFirst && !invalidAlone && group.some((row) => row._tag === "RejectedRow")) invalidAlone = true
    if (refusedAlone()) return Effect.sync(() => count(group, group.map(() => NONE)))
    return Effect.flatMap(opened, (c) =>
      Effect.flatMap(c(group), (extras) => Effect.as(Effect.map(c.historyOf(group, extras), history.add), count(group, extras)))
    )
  }

  return {
    add,
    get rows() {
      return rows
    },
    get errors(): ReadonlyArray<RowError> {
      return errors
    },
    phones: () => history.findings(phones),
    /** The errors to list: a file refused on its own errors (ownFirst) lists those alone. */
    listed: (): ReadonlyArray<RowError> => (refusedAlone() && added.size > 0 ? errors.filter((e) => !added.has(e)) : errors)
  }
}

export type Tally = ReturnType<typeof makeTally>

/**
 * The file's rows, checked and tallied, in groups in file order. The stream fails with the file's own problem
 * (a CsvFileError: the caller refuses the file on it), FileChanged, or the other batches' errors.
 */
export const intakeRows = <E, R>(input: FileCheckInput, others: OtherBatches<E, R>) =>
  Effect.sync(() => {
    const phones = new SharedPhones(input.allowSharedPhone === true)
    const tally = makeTally(input, others, phones)
    const rows = parseCsvFile(input.file, { expect: input.batchId }).pipe(
      checkedGroups({ fileName: input.fileName, allowRepeats: input.allowRepeats, sharedPhones: phones }, GROUP),
      Stream.mapEffect(tally.add)
    )
    return { tally, rows }
  })

/** A dry run's verdict from its tally and the rows it would pay. */
export const dryRunResult = (input: FileCheckInput, tally: Tally, pending: PendingColumns, rejected: number): DryRunResult => {
  if (tally.errors.length === 0 || input.skipInvalid) {
    return Intake.Checked({ batchId: input.batchId, pending, rejected, errors: tally.errors, phones: tally.phones() })
  }
  return Intake.Refused({ batchId: input.batchId, errors: tally.listed(), rows: tally.rows })
}
