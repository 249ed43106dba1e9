/**
 * What both adapters share of the row links of `payouts retry` (issue 31: correct and re-pay): the
 * record stored per child row, the parent rows another child already holds, and the error that rolls
 * a link's transaction back when it finds some.
 */
import { Data, Effect } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import type { RetryLinked, RowRetry } from "./Model.ts"

/** Raised inside the link's transaction, so that it writes nothing; answered as `Taken`. */
export class RowsTaken extends Data.TaggedError("RowsTaken")<{ readonly taken: ReadonlyArray<RowRetry> }> {}

export const rowRetryRecord = (accountId: AccountId, r: RowRetry) => ({
  account_id: accountId,
  parent_batch_id: r.parentBatchId,
  parent_idx: r.parentIdx,
  parent_line: r.parentLine,
  child_batch_id: r.childBatchId,
  child_idx: r.childIdx,
  child_line: r.childLine
})

/** The links of another child (`held`) on the parent rows asked for. */
export const takenOf = (asked: ReadonlyArray<RowRetry>, held: ReadonlyArray<RowRetry>): ReadonlyArray<RowRetry> => {
  const wanted = new Set(asked.map((r) => r.parentIdx))
  return held.filter((r) => wanted.has(r.parentIdx))
}

/** A whole retry asks for no rows, so none can be taken. */
export const linkOf = (linked: RetryLinked) =>
  linked._tag === "Linked" ? Effect.succeed(linked.link) : Effect.dieMessage("a retry link without rows found rows taken")
