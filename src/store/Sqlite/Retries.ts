/**
 * `payouts retry` links on SQLite: one write transaction inserts a link unless its parent (for a whole
 * retry) or its child already has one, and reads back the link in force, so two retries of one parent
 * at the same moment agree on a single child. Row links (which parent row each child row pays again)
 * go in the same transaction; a parent row another child holds rolls it back (`Taken`).
 */
import type { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { RetryLinked } from "../Model.ts"
import { linkInForce, linkOf, linkRowsIn, linksOf, rowLinksOf } from "../RowRetries.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"

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
        return yield* linkRowsIn(sql, accountId, yield* linkInForce(sql, accountId, link, fixes), link, rows)
      })
    ).pipe(
      Effect.catchTag("RowsTaken", (e) => Effect.succeed<RetryLinked>({ _tag: "Taken", taken: e.taken })),
      Effect.withSpan("StateStore.linkRetryRows")
    )

  const retryLinks: StoreDriver["retryLinks"] = (accountId) => catchSql(linksOf(sql, accountId))

  const rowRetries: StoreDriver["rowRetries"] = (accountId, batchId) => catchSql(rowLinksOf(sql, accountId, batchId))

  return { linkRetry, retryLinks, linkRetryRows, rowRetries } satisfies Partial<StoreDriver>
}
