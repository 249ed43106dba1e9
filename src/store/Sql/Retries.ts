/**
 * `payouts retry` links (issue 31). One write transaction inserts a link unless its parent (for a whole
 * retry) or its child already has one, and reads back the link in force: unique keys make two processes
 * retrying one parent at once agree on a single child. Row links (which parent row each child row pays
 * again) go in the same transaction; a parent row another child holds rolls it back (`Taken`).
 */
import { Data, Effect } from "effect"
import type { AccountId } from "../../domain/Ids.ts"
import { RetryLink, type RetryLinked, RowRetry } from "../Model.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decoder } from "./Columns.ts"
import { chunksOf, type Db, StoreDb } from "./Db.ts"

const decodeLinks = decoder(RetryLink)
const decodeRowLinks = decoder(RowRetry)

const LINK_COLUMNS = "parent_batch_id, child_batch_id, generation, created_at, fixes"
const ROW_LINK_COLUMNS = "parent_batch_id, parent_idx, parent_line, child_batch_id, child_idx, child_line"
const INSERT_CHUNK = 500

/** Raised inside the link's transaction, so that it writes nothing; answered as `Taken`. */
class RowsTaken extends Data.TaggedError("RowsTaken")<{ readonly taken: ReadonlyArray<RowRetry> }> {}

const rowRetryRecord = (accountId: AccountId, r: RowRetry) => ({
  account_id: accountId,
  parent_batch_id: r.parentBatchId,
  parent_idx: r.parentIdx,
  parent_line: r.parentLine,
  child_batch_id: r.childBatchId,
  child_idx: r.childIdx,
  child_line: r.childLine
})

export const makeRetries = (db: Db) => {
  const { sql } = db

  /** The link in force after the insert: for a whole retry the parent's whole link first, the one a second retry of the same parent must find. */
  const linkInForce = (accountId: AccountId, link: Pick<RetryLink, "parentBatchId" | "childBatchId">, fixes: boolean) =>
    (fixes
      ? sql`SELECT ${sql.literal(LINK_COLUMNS)} FROM retries WHERE account_id = ${accountId} AND child_batch_id = ${link.childBatchId}`
      : sql`SELECT ${sql.literal(LINK_COLUMNS)} FROM retries
        WHERE account_id = ${accountId} AND ((parent_batch_id = ${link.parentBatchId} AND fixes = 0) OR child_batch_id = ${link.childBatchId})
        ORDER BY (parent_batch_id = ${link.parentBatchId} AND fixes = 0) DESC LIMIT 1`).pipe(
      Effect.flatMap(decodeLinks),
      Effect.map((found) => found[0])
    )

  /** Once the link in force is known: the child's row links, unless another child holds one of their parent rows. */
  const linkRowsIn = (accountId: AccountId, inForce: RetryLink, link: Pick<RetryLink, "parentBatchId" | "childBatchId">, rows: ReadonlyArray<RowRetry>) =>
    Effect.gen(function* () {
      if (inForce.childBatchId !== link.childBatchId || inForce.parentBatchId !== link.parentBatchId || rows.length === 0) {
        return { _tag: "Linked", link: inForce } satisfies RetryLinked
      }
      for (const chunk of chunksOf(rows, INSERT_CHUNK)) {
        yield* sql`INSERT INTO rows_retried ${sql.insert(chunk.map((r) => rowRetryRecord(accountId, r)))} ON CONFLICT DO NOTHING`
      }
      const held = yield* sql`SELECT ${sql.literal(ROW_LINK_COLUMNS)} FROM rows_retried
        WHERE account_id = ${accountId} AND parent_batch_id = ${link.parentBatchId} AND child_batch_id <> ${link.childBatchId}`.pipe(
        Effect.flatMap(decodeRowLinks)
      )
      const wanted = new Set(rows.map((r) => r.parentIdx))
      const taken = held.filter((r) => wanted.has(r.parentIdx))
      if (taken.length > 0) return yield* new RowsTaken({ taken })
      return { _tag: "Linked", link: inForce } satisfies RetryLinked
    })

  // Safe to run twice: inserts that do nothing when present. A lost COMMIT is reported (Unavailable):
  // run again, the same links are found.
  const linkRetryRows: StoreDriver["linkRetryRows"] = (accountId, { fixes, link, rows }) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`INSERT INTO retries (account_id, parent_batch_id, child_batch_id, generation, created_at, fixes)
          VALUES (${accountId}, ${link.parentBatchId}, ${link.childBatchId}, ${link.generation}, ${yield* db.now}, ${fixes ? 1 : 0})
          ON CONFLICT DO NOTHING`
        return yield* linkRowsIn(accountId, yield* linkInForce(accountId, link, fixes), link, rows)
      })
    ).pipe(
      Effect.catchTag("RowsTaken", (e) => Effect.succeed<RetryLinked>({ _tag: "Taken", taken: e.taken })),
      Effect.withSpan("RetryLinks.linkRetryRows")
    )

  // A whole retry asks for no rows, so none can be taken.
  const linkRetry: StoreDriver["linkRetry"] = (accountId, link) =>
    Effect.flatMap(linkRetryRows(accountId, { link, fixes: false, rows: [] }), (linked) =>
      linked._tag === "Linked" ? Effect.succeed(linked.link) : Effect.dieMessage("a retry link without rows found rows taken"))

  const retryLinks: StoreDriver["retryLinks"] = (accountId) =>
    db.read(
      sql`SELECT ${sql.literal(LINK_COLUMNS)} FROM retries WHERE account_id = ${accountId} ORDER BY created_at, child_batch_id`.pipe(
        Effect.flatMap(decodeLinks)
      )
    )

  const rowRetries: StoreDriver["rowRetries"] = (accountId, batchId) =>
    db.read(
      sql`SELECT ${sql.literal(ROW_LINK_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND parent_batch_id = ${batchId}
        UNION ALL
        SELECT ${sql.literal(ROW_LINK_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND child_batch_id = ${batchId}`.pipe(
        Effect.flatMap(decodeRowLinks)
      )
    )

  return { linkRetry, retryLinks, linkRetryRows, rowRetries } satisfies Partial<StoreDriver>
}

/** Links of retry batches and their rows to what they pay again. */
export class RetryLinks extends Effect.Service<RetryLinks>()("store/RetryLinks", { effect: Effect.map(StoreDb, makeRetries) }) {}
