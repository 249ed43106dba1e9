/**
 * `payouts retry` links on SQLite: one write transaction inserts a link unless its parent or its
 * child already has one, and reads back the link in force, so two retries of one parent at the same
 * moment agree on a single child.
 */
import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { RetryLink } from "../Model.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"

const decodeLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RetryLink))(rows))

const COLUMNS = "parent_batch_id, child_batch_id, generation, created_at"

export const makeRetries = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  const linkRetry: StoreDriver["linkRetry"] = (accountId, link) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        yield* sql`INSERT INTO retries (account_id, parent_batch_id, child_batch_id, generation, created_at)
          VALUES (${accountId}, ${link.parentBatchId}, ${link.childBatchId}, ${link.generation}, ${now})
          ON CONFLICT DO NOTHING`
        // The parent's link first: it is the one a second retry of the same parent must find.
        const found = yield* sql`SELECT ${sql.literal(COLUMNS)} FROM retries
          WHERE account_id = ${accountId} AND (parent_batch_id = ${link.parentBatchId} OR child_batch_id = ${link.childBatchId})
          ORDER BY parent_batch_id = ${link.parentBatchId} DESC LIMIT 1`.pipe(Effect.flatMap(decodeLinks))
        return found[0]
      })
    ).pipe(Effect.withSpan("StateStore.linkRetry"))

  const retryLinks: StoreDriver["retryLinks"] = (accountId) =>
    catchSql(
      sql`SELECT ${sql.literal(COLUMNS)} FROM retries WHERE account_id = ${accountId} ORDER BY created_at, child_batch_id`.pipe(
        Effect.flatMap(decodeLinks)
      )
    )

  return { linkRetry, retryLinks } satisfies Partial<StoreDriver>
}
