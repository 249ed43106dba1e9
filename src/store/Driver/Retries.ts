/** The contract of Sql/Retries.ts: `payouts retry` links of batches and of their rows. */
import type { Effect } from "effect"
import type { RetryLink, RetryLinked, RetryRequest, RowRetry, StoreError } from "../Model.ts"
import type { AccountId, BatchId } from "../../domain/Ids.ts"

export interface RetriesDriver {
  /**
   * Links a retry batch to its parent, once per parent and once per child, atomically across every
   * process sharing the store. Answers the link in force: the one given when it was free, else the
   * parent's existing link (or the child's, when the child is already another batch's retry).
   */
  readonly linkRetry: (accountId: AccountId, link: Omit<RetryLink, "createdAt" | "fixes">) => Effect.Effect<RetryLink, StoreError>
  /** Every retry link of the account, oldest first (few: one per `payouts retry`). */
  readonly retryLinks: (accountId: AccountId) => Effect.Effect<ReadonlyArray<RetryLink>, StoreError>
  /**
   * Links a retry batch (whole, one per parent; or a `--fix` child, several per parent) and each of its
   * rows to the parent row it pays again, in one transaction: a parent row is paid again by one child
   * only, across every process sharing the store (`Taken` names the rows another child holds).
   */
  readonly linkRetryRows: (accountId: AccountId, request: RetryRequest) => Effect.Effect<RetryLinked, StoreError>
  /** The row links where the batch is the parent or the child (few: its rows paid again, or paying again). */
  readonly rowRetries: (accountId: AccountId, batchId: BatchId) => Effect.Effect<ReadonlyArray<RowRetry>, StoreError>
}
