/**
 * Every row of an account that needs a person (unknown, or under an alarm), batch by batch, with the
 * evidence `payouts resolve` shows for it (ResolveEvidence.ts). Read from the store as the last sync
 * left the listing mirror: looking takes no lease, so a running batch is never held up by a look.
 */
import { Chunk, Effect, Option, Stream } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import type { BatchSummary } from "../store/Driver/Batches.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { needsPerson } from "../store/Model.ts"
import { evidenceOf, type RowEvidence } from "./ResolveEvidence.ts"

export interface AttentionBatch {
  readonly batch: BatchSummary
  readonly rows: ReadonlyArray<RowEvidence>
}

export interface Attention {
  /** The account alarm: the listing cannot prove absence; a person checks it by hand. */
  readonly accountAlarm: string | undefined
  readonly batches: ReadonlyArray<AttentionBatch>
}

export const attentionOf = Effect.fn("Attention.list")(function* (accountId: AccountId) {
  const [reads, mirror] = yield* Effect.all([Rows, MirrorStore])
  const batches = yield* Effect.flatMap(Batches, (b) => b.listBatches(accountId))
  const found = yield* Effect.forEach(batches, (batch) =>
    Effect.gen(function* () {
      // Unknown rows (counted) and rows under an alarm (flagged: any state), each once, in file order.
      const unknown = batch.counts.unknown > 0 ? Chunk.toReadonlyArray(yield* Stream.runCollect(reads.streamRowsInStates(accountId, batch.batchId, ["unknown"]))) : []
      const flagged = (yield* mirror.flaggedRows(accountId, batch.batchId)).filter(needsPerson)
      const byIdx = new Map([...unknown, ...flagged].map((row) => [row.idx, row]))
      const rows = [...byIdx.values()].sort((a, b) => a.idx - b.idx)
      return { batch, rows: yield* Effect.forEach(rows, (row) => evidenceOf(accountId, batch.batchId, row)) }
    }))
  const alarm = yield* mirror.accountAlarm(accountId)
  return {
    accountAlarm: Option.match(alarm, { onNone: () => undefined, onSome: (a) => a.reason }),
    batches: found.filter((b) => b.rows.length > 0)
  } satisfies Attention
})
