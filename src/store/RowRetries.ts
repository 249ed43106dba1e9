/**
 * What both adapters share of the row links of `payouts retry` (issue 31: correct and re-pay): the
 * record stored per child row, the parent rows another child already holds, and the error that rolls
 * a link's transaction back when it finds some.
 */
import type { SqlClient } from "@effect/sql"
import { Chunk, Data, Effect, Schema } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import { RetryLink, type RetryLinked, RowRetry } from "./Model.ts"

const decodeLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RetryLink))(rows))
const decodeRowLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RowRetry))(rows))

const LINK_COLUMNS = "parent_batch_id, child_batch_id, generation, created_at, fixes"
const ROW_COLUMNS = "parent_batch_id, parent_idx, parent_line, child_batch_id, child_idx, child_line"
const INSERT_CHUNK = 500

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

/**
 * Inside the link's transaction, once the link in force is known: the child's row links, unless
 * another child holds one of their parent rows (then `RowsTaken` rolls the transaction back).
 */
export const linkRowsIn = (sql: SqlClient.SqlClient, accountId: AccountId, inForce: RetryLink, link: Pick<RetryLink, "parentBatchId" | "childBatchId">, rows: ReadonlyArray<RowRetry>) =>
  Effect.gen(function* () {
    if (inForce.childBatchId !== link.childBatchId || inForce.parentBatchId !== link.parentBatchId || rows.length === 0) {
      return { _tag: "Linked", link: inForce } satisfies RetryLinked
    }
    for (const chunk of Chunk.chunksOf(Chunk.unsafeFromArray([...rows]), INSERT_CHUNK)) {
      yield* sql`INSERT INTO rows_retried ${sql.insert(Chunk.toReadonlyArray(chunk).map((r) => rowRetryRecord(accountId, r)))} ON CONFLICT DO NOTHING`
    }
    const held = yield* sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried
      WHERE account_id = ${accountId} AND parent_batch_id = ${link.parentBatchId} AND child_batch_id <> ${link.childBatchId}`.pipe(
      Effect.flatMap(decodeRowLinks)
    )
    const taken = takenOf(rows, held)
    if (taken.length > 0) return yield* new RowsTaken({ taken })
    return { _tag: "Linked", link: inForce } satisfies RetryLinked
  })

/** The link in force after the insert: for a whole retry the parent's whole link first, the one a second retry of the same parent must find. */
export const linkInForce = (sql: SqlClient.SqlClient, accountId: AccountId, link: Pick<RetryLink, "parentBatchId" | "childBatchId">, fixes: boolean) =>
  (fixes
    ? sql`SELECT ${sql.literal(LINK_COLUMNS)} FROM retries WHERE account_id = ${accountId} AND child_batch_id = ${link.childBatchId}`
    : sql`SELECT ${sql.literal(LINK_COLUMNS)} FROM retries
      WHERE account_id = ${accountId} AND ((parent_batch_id = ${link.parentBatchId} AND fixes = 0) OR child_batch_id = ${link.childBatchId})
      ORDER BY (parent_batch_id = ${link.parentBatchId} AND fixes = 0) DESC LIMIT 1`).pipe(
    Effect.flatMap(decodeLinks),
    Effect.map((found) => found[0])
  )

/** Every retry link of the account, oldest first. */
export const linksOf = (sql: SqlClient.SqlClient, accountId: AccountId) =>
  sql`SELECT ${sql.literal(LINK_COLUMNS)} FROM retries WHERE account_id = ${accountId} ORDER BY created_at, child_batch_id`.pipe(Effect.flatMap(decodeLinks))

/** The row links of a batch, as parent and as child. */
export const rowLinksOf = (sql: SqlClient.SqlClient, accountId: AccountId, batchId: string) =>
  sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND parent_batch_id = ${batchId}
    UNION ALL
    SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND child_batch_id = ${batchId}`.pipe(Effect.flatMap(decodeRowLinks))
