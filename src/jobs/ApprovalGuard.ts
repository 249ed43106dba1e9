/**
 * The store's batches as a run under an approval sees them. The batch is created only if it is the approved
 * one (the same id, and the same control totals over the rows actually stored), and the approval (who,
 * when, what) is recorded with it, before any row can be sent. The watcher checks the file just before
 * the run; this closes the window between that check and the runner's own read of the file: an edit
 * there fails the run instead of paying what nobody approved.
 */
import { Effect, Option, Predicate, Ref, Stream } from "effect"
import { type NewBatch, type RowInput, StoreError } from "../store/Model.ts"
import { AccountRecords } from "../store/Sql/Account.ts"
import { Batches } from "../store/Sql/Batches.ts"
import type { ApprovedWhat } from "../output/ApprovalFile.ts"
import { controlDifference, controlTally } from "./Scan.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export interface Approver {
  readonly by: string
  /** Epoch ms. */
  readonly at: number
  readonly what: ApprovedWhat
}

const isStream = <A, E, R>(rows: Iterable<A> | Stream.Stream<A, E, R>): rows is Stream.Stream<A, E, R> =>
  Predicate.hasProperty(rows, Stream.StreamTypeId)

export const recordApproval = (accountId: AccountId, batchId: BatchId, approver: Approver) =>
  Effect.flatMap(AccountRecords, (records) =>
    records.recordApproval(accountId, batchId, { by: approver.by, at: approver.at, what: JSON.stringify(approver.what) })
  )

export const approvedBatches = (accountId: AccountId, approver: Approver) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const records = yield* AccountRecords
    const refused = yield* Ref.make(Option.none<string>())
    const refuse = (reason: string) =>
      Effect.zipRight(
        Ref.set(refused, Option.some(reason)),
        Effect.fail(new StoreError({ reason: "Conflict", message: `not the approved batch ${approver.what.batch_id}: ${reason}` }))
      )
    const createBatch: Batches["createBatch"] = <E, R>(batch: NewBatch, rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>) => {
      if (batch.batchId !== approver.what.batch_id) return refuse(`the file read by the run is batch ${batch.batchId}`)
      const tally = controlTally()
      const source: Stream.Stream<RowInput, E, R> = isStream(rows) ? rows : Stream.fromIterable(rows)
      const counted = Stream.concat(
        Stream.tap(source, (row) =>
          Effect.sync(() => {
            if (row.state !== "rejected") tally.add(row.currency, row.amountMinor ?? 0)
          })
        ),
        // After the last row, before the store's write completes: the rows stored are the rows approved.
        Stream.drain(
          Stream.fromEffect(
            Effect.suspend(() => {
              const differs = controlDifference(approver.what, tally.totals())
              return differs === undefined ? Effect.void : refuse(`the rows read by the run differ: ${differs}`)
            })
          )
        )
      )
      return Effect.tap(batches.createBatch(batch, counted), (created) => recordApproval(accountId, created.batchId, approver).pipe(Effect.provideService(AccountRecords, records)))
    }
    return { batches: Batches.make({ ...batches, createBatch }), refused: Ref.get(refused) } as const
  })
