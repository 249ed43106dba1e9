/**
 * What a dry run adds up, group after group of rows in file order: the errors, the rows it would pay
 * (as columns), and the cross-batch check, opened when a group first needs it (see OtherBatches).
 */
import { Effect } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import type { MergedChunk } from "./ChunkMerge.ts"
import type { IntakeRow, makeCrossBatch } from "./CrossBatch.ts"
import { Intake } from "./IntakeResult.ts"
import { PendingColumns } from "./PendingColumns.ts"
import type { RowError } from "./RowError.ts"
import { makeHistoryList, SharedPhones } from "./SharedPhones.ts"

/** For each row of a group, what the account's other batches and the guards add to it (CrossBatch.ts). */
export type CrossBatchCheck = Effect.Effect.Success<ReturnType<typeof makeCrossBatch>>
export type CrossBatchError = Effect.Effect.Error<ReturnType<CrossBatchCheck>>

/**
 * Where the cross-batch check comes from, opened at most once. `ownFirst` (`payouts validate`): a
 * file with a row invalid on its own (without --skip-invalid) is refused on its own errors alone and
 * the other batches are not asked from then on, so a file refused at intake needs neither the service
 * (which tells the account) nor the store. The errors the other batches added to earlier rows are
 * then left out too: what is listed does not depend on where the first invalid row is. Without it
 * (`payouts run`, the watcher's dry run) every row is asked.
 */
export interface OtherBatches<E, R> {
  readonly open: Effect.Effect<CrossBatchCheck, E, R>
  readonly ownFirst: boolean
}

/** What a dry run of a new file gives: refused, or checked (nothing stored either way). */
export type DryRunResult = Extract<Intake, { readonly _tag: "Refused" | "Checked" }>

const NONE: ReadonlyArray<RowError> = []

export const makeTally = <E, R>(batchId: BatchId, skipInvalid: boolean, others: OtherBatches<E, R>, phones: SharedPhones = new SharedPhones(false)) => {
  const history = makeHistoryList()
  const errors: Array<RowError> = []
  // The errors the other batches added (few): left out of a file refused on its own errors (ownFirst).
  const added = new Set<RowError>()
  const pending = new PendingColumns()
  let rows = 0
  let rejected = 0
  let invalidAlone = false
  let check: CrossBatchCheck | undefined
  const refusedAlone = () => others.ownFirst && invalidAlone && !skipInvalid

  const count = (group: ReadonlyArray<IntakeRow>, extras: ReadonlyArray<ReadonlyArray<RowError>> | undefined) => {
    group.forEach((row, i) => {
      const extra = extras === undefined ? NONE : extras[i]
      for (const e of extra) added.add(e)
      const rowErrors = row._tag === "RejectedRow" ? (extra.length === 0 ? row.errors : [...row.errors, ...extra]) : extra
      for (const e of rowErrors) errors.push(e)
      rows++
      if (rowErrors.length > 0) return void rejected++
      if (row._tag !== "ValidRow") return
      pending.push(row.index, row.currency, row.amountMinor)
    })
  }

  /** `count` of a chunk's rows to which the other batches add nothing, read from its columns. */
  const countChunk = (chunk: MergedChunk) => {
    for (let i = 0; i < chunk.count; i++) {
      const own = chunk.errorsOf(i)
      rows++
      if (own !== undefined) {
        for (const e of own) errors.push(e)
        rejected++
      } else pending.push(chunk.index + i, chunk.currencyOf(i), chunk.amountOf(i))
    }
  }

  const opened: Effect.Effect<CrossBatchCheck, E, R> = Effect.suspend(() =>
    check === undefined ? Effect.tap(others.open, (c) => Effect.sync(() => void (check = c))) : Effect.succeed(check)
  )

  return {
    get rows() {
      return rows
    },
    add: (group: ReadonlyArray<IntakeRow>): Effect.Effect<void, E | CrossBatchError, R> => {
      if (others.ownFirst && !invalidAlone && group.some((row) => row._tag === "RejectedRow")) invalidAlone = true
      if (refusedAlone()) return Effect.sync(() => count(group, undefined))
      return Effect.flatMap(opened, (c) =>
        Effect.flatMap(c(group), (extras) => {
          count(group, extras)
          return Effect.map(c.historyOf(group, extras), history.add)
        })
      )
    },
    /**
     * `add` of a chunk merged from a worker's columns: the rows are made objects only when the other
     * batches found something for its ids or repeat keys, or the guards must judge them.
     */
    addChunk: (chunk: MergedChunk): Effect.Effect<void, E | CrossBatchError, R> => {
      if (others.ownFirst && !invalidAlone && chunk.anyErrors) invalidAlone = true
      if (refusedAlone()) return Effect.sync(() => countChunk(chunk))
      return Effect.flatMap(opened, (c) => {
        const { ids, keys } = chunk.asks()
        return Effect.flatMap(c.lookup(ids, keys), (found) => {
          if (found.byId.size === 0 && found.byKey.size === 0 && !c.guarded) {
            countChunk(chunk)
            return Effect.map(c.history(chunk.phoneRows()), history.add)
          }
          const group = chunk.rows()
          return Effect.flatMap(c.extrasOf(group, found), (extras) => {
            count(group, extras)
            return Effect.map(c.historyOf(group, extras), history.add)
          })
        })
      })
    },
    result: (): DryRunResult => {
      if (errors.length === 0 || skipInvalid) return Intake.Checked({ batchId, pending, rejected, errors, phones: history.findings(phones) })
      const listed = refusedAlone() && added.size > 0 ? errors.filter((e) => !added.has(e)) : errors
      return Intake.Refused({ batchId, errors: listed, rows })
    }
  }
}
