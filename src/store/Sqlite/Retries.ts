/**
 * `payouts retry` links on SQLite: one write transaction inserts a link unless its parent (for a whole
 * retry) or its child already has one, and reads back the link in force, so two retries of one parent
 * at the same moment agree on a single child. Row links (which parent row each child row pays again)
 * go in the same transaction; a parent row another child holds rolls it back (`Taken`).
 */
import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { RetryLink, type RetryLinked, RowRetry } from "../Model.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { chunksOf } from "./Queries.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"
import { linkOf, RowsTaken, rowRetryRecord, takenOf } from "../RowRetries.ts"

const decodeLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RetryLink))(rows))
const decodeRowLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RowRetry))(rows))

const COLUMNS = "parent_batch_id, child_batch_id, generation, created_at, fixes"
const ROW_COLUMNS = "parent_batch_id, parent_idx, parent_line, child_batch_id, child_idx, child_line"
const INSERT_CHUNK = 500

export const makeRetries = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  const linkRetry: StoreDriver["linkRetry"] = (accountId, link) =>
    Effect.flatMap(linkRetryRows(accountId, { link, fixes: false, rows: [] }), linkOf)

  const linkRetryRows: StoreDriver["linkRetryRows"] = (accountId, { fixes, link, rows }) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        yield* sql`INSERT INTO retries (account_id, parent_batch_id, child_batch_id, generation, created_at, fixes)
          VALUES (${accountId}, ${link.parentBatchId}, ${link.childBatchId}, ${link.generation}, ${now}, ${fixes ? 1 : 0})
          ON CONFLICT DO NOTHING`
        // A whole retry: the parent's whole link first, the one a second retry of the same parent must find.
        const found = yield* (fixes
          ? sql`SELECT ${sql.literal(COLUMNS)} FROM retries WHERE account_id = ${accountId} AND child_batch_id = ${link.childBatchId}`
          : sql`SELECT ${sql.literal(COLUMNS)} FROM retries
          WHERE account_id = ${accountId} AND ((parent_batch_id = ${link.parentBatchId} AND fixes = 0) OR child_batch_id = ${link.childBatchId})
          ORDER BY (parent_batch_id = ${link.parentBatchId} AND fixes = 0) DESC LIMIT 1`).pipe(Effect.flatMap(decodeLinks))
        const inForce = found[0]
        if (inForce.childBatchId !== link.childBatchId || inForce.parentBatchId !== link.parentBatchId || rows.length === 0) {
          return { _tag: "Linked", link: inForce } satisfies RetryLinked
        }
        for (const chunk of chunksOf(rows, INSERT_CHUNK)) {
          yield* sql`INSERT INTO rows_retried ${sql.insert(chunk.map((r) => rowRetryRecord(accountId, r)))} ON CONFLICT DO NOTHING`
        }
        const held = yield* sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried
          WHERE account_id = ${accountId} AND parent_batch_id = ${link.parentBatchId} AND child_batch_id <> ${link.childBatchId}`.pipe(
          Effect.flatMap(decodeRowLinks)
        )
        const taken = takenOf(rows, held)
        if (taken.length > 0) return yield* new RowsTaken({ taken })
        return { _tag: "Linked", link: inForce } satisfies RetryLinked
      })
    ).pipe(
      Effect.catchTag("RowsTaken", (e) => Effect.succeed<RetryLinked>({ _tag: "Taken", taken: e.taken })),
      Effect.withSpan("StateStore.linkRetryRows")
    )

  const retryLinks: StoreDriver["retryLinks"] = (accountId) =>
    catchSql(
      sql`SELECT ${sql.literal(COLUMNS)} FROM retries WHERE account_id = ${accountId} ORDER BY created_at, child_batch_id`.pipe(
        Effect.flatMap(decodeLinks)
      )
    )

  const rowRetries: StoreDriver["rowRetries"] = (accountId, batchId) =>
    catchSql(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND parent_batch_id = ${batchId}
        UNION ALL
        SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND child_batch_id = ${batchId}`.pipe(
        Effect.flatMap(decodeRowLinks)
      )
    )

  return { linkRetry, retryLinks, linkRetryRows, rowRetries } satisfies Partial<StoreDriver>
}
