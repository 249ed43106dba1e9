/**
 * Which rows of a batch pay again a row of another batch, and which were paid again elsewhere (issue
 * 31: `payouts retry`, `--fix` included): read once per ledger or report from the store's row links,
 * and said the same way in both (ledger columns `retry_of` and `retried_as`, the report's notes).
 */
import { Effect } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import type { RowRetry } from "../store/Model.ts"
import { RetryLinks } from "../store/Sql/Retries.ts"

export interface RowLinks {
  /** By this batch's row idx: the row of the parent it pays again. */
  readonly retryOf: ReadonlyMap<number, RowRetry>
  /** By this batch's row idx: the child row that pays it again. */
  readonly retriedAs: ReadonlyMap<number, RowRetry>
}

export const NO_ROW_LINKS: RowLinks = { retryOf: new Map(), retriedAs: new Map() }

export const rowLinksOf = Effect.fn("Outputs.rowLinks")(function* (accountId: AccountId, batchId: BatchId) {
  const links = yield* (yield* RetryLinks).rowRetries(accountId, batchId)
  if (links.length === 0) return NO_ROW_LINKS
  return {
    retryOf: new Map(links.filter((l) => l.childBatchId === batchId).map((l) => [l.childIdx, l])),
    retriedAs: new Map(links.filter((l) => l.parentBatchId === batchId).map((l) => [l.parentIdx, l]))
  } satisfies RowLinks
})

/** The ledger's cells: `BATCH line N`, empty when none. */
export const retryOfCell = (link: RowRetry | undefined): string => (link === undefined ? "" : `${link.parentBatchId} line ${link.parentLine}`)
export const retriedAsCell = (link: RowRetry | undefined): string => (link === undefined ? "" : `${link.childBatchId} line ${link.childLine}`)

/** The ledger fields of the row `idx` of this batch. */
export const retryCells = (links: RowLinks, idx: number) => ({
  retryOf: retryOfCell(links.retryOf.get(idx)),
  retriedAs: retriedAsCell(links.retriedAs.get(idx))
})
