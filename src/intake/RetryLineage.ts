/**
 * Where a batch stands among `payouts retry` batches: the batch it pays again (its parent), its retry
 * generation (minted into its rows' tokens, so the service and the pre-scan tell a retry from the
 * payout that failed), and every batch it descends from (whose failed rows it may pay again).
 */
import { Effect } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { RetryLinks } from "../store/Sql/Retries.ts"

export interface RetryLineage {
  /** The batch this one retries; undefined for a batch made from a file of its own. */
  readonly parent: BatchId | undefined
  /** 0 for a batch that is no retry. */
  readonly generation: number
  /** The parent, its parent, ... (empty for a batch that is no retry). */
  readonly ancestors: ReadonlySet<BatchId>
}

export const NO_LINEAGE: RetryLineage = { parent: undefined, generation: 0, ancestors: new Set() }

export const retryLineage = Effect.fn("Intake.retryLineage")(function* (accountId: AccountId, batchId: BatchId) {
  const links = yield* (yield* RetryLinks).retryLinks(accountId)
  if (links.length === 0) return NO_LINEAGE
  const parentOf = new Map(links.map((l) => [l.childBatchId, l]))
  const own = parentOf.get(batchId)
  if (own === undefined) return NO_LINEAGE
  const ancestors = new Set<BatchId>()
  // A parent is never its own descendant (a child's file names its parent); the check stops a cycle all the same.
  for (let link = parentOf.get(batchId); link !== undefined && !ancestors.has(link.parentBatchId); link = parentOf.get(link.parentBatchId)) {
    ancestors.add(link.parentBatchId)
  }
  return { parent: own.parentBatchId, generation: own.generation, ancestors } satisfies RetryLineage
})
