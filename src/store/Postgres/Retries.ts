/**
 * `payouts retry` links on PostgreSQL: the unique keys on the child and on a parent's whole retry make
 * two machines retrying one parent at the same moment agree on a single child (the second insert waits
 * for the first, then does nothing and reads the first's link). Row links go in the same transaction:
 * the unique key on the parent row makes a second child wait, then find the row taken and roll back.
 * Times are the store's clock.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import type { RetryLinked } from "../Model.ts"
import { linkInForce, linkOf, linkRowsIn, linksOf, rowLinksOf } from "../RowRetries.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import type { Access } from "./Transaction.ts"

export const makeRetries = (db: Access, storeNow: Effect.Effect<Fragment>) => {
  const { sql } = db

  // Safe to run twice: inserts that do nothing when present. A lost COMMIT is reported (Unavailable):
  // run again, the same links are found.
  const linkRetryRows: StoreDriver["linkRetryRows"] = (accountId, { fixes, link, rows }) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`INSERT INTO retries (account_id, parent_batch_id, child_batch_id, generation, created_at, fixes)
          VALUES (${accountId}, ${link.parentBatchId}, ${link.childBatchId}, ${link.generation}, ${yield* storeNow}, ${fixes ? 1 : 0})
          ON CONFLICT DO NOTHING`
        return yield* linkRowsIn(sql, accountId, yield* linkInForce(sql, accountId, link, fixes), link, rows)
      })
    ).pipe(
      Effect.catchTag("RowsTaken", (e) => Effect.succeed<RetryLinked>({ _tag: "Taken", taken: e.taken })),
      Effect.withSpan("StateStore.linkRetryRows")
    )

  const linkRetry: StoreDriver["linkRetry"] = (accountId, link) =>
    Effect.flatMap(linkRetryRows(accountId, { link, fixes: false, rows: [] }), linkOf)

  const retryLinks: StoreDriver["retryLinks"] = (accountId) => db.read(linksOf(sql, accountId))

  const rowRetries: StoreDriver["rowRetries"] = (accountId, batchId) => db.read(rowLinksOf(sql, accountId, batchId))

  return { linkRetry, retryLinks, linkRetryRows, rowRetries } satisfies Partial<StoreDriver>
}
