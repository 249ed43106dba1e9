/**
 * `payouts retry` links on PostgreSQL: the unique keys on parent and child make two machines retrying
 * one parent at the same moment agree on a single child (the second insert waits for the first, then
 * does nothing and reads the first's link). Times are the store's clock.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { RetryLink } from "../Model.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import type { Access } from "./Transaction.ts"

const decodeLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RetryLink))(rows))

const COLUMNS = "parent_batch_id, child_batch_id, generation, created_at"

export const makeRetries = (db: Access, storeNow: Effect.Effect<Fragment>) => {
  const { sql } = db

  const linkFor = (accountId: string, link: Omit<RetryLink, "createdAt">) =>
    sql`SELECT ${sql.literal(COLUMNS)} FROM retries
      WHERE account_id = ${accountId} AND (parent_batch_id = ${link.parentBatchId} OR child_batch_id = ${link.childBatchId})
      ORDER BY (parent_batch_id = ${link.parentBatchId}) DESC LIMIT 1`.pipe(Effect.flatMap(decodeLinks), Effect.map((found) => found[0]))

  // Safe to run twice: a lost COMMIT is settled by reading the link in force.
  const linkRetry: StoreDriver["linkRetry"] = (accountId, link) =>
    db.writeOrReadBack(
      Effect.gen(function* () {
        yield* sql`INSERT INTO retries (account_id, parent_batch_id, child_batch_id, generation, created_at)
          VALUES (${accountId}, ${link.parentBatchId}, ${link.childBatchId}, ${link.generation}, ${yield* storeNow})
          ON CONFLICT DO NOTHING`
        return yield* linkFor(accountId, link)
      }),
      linkFor(accountId, link)
    ).pipe(Effect.withSpan("StateStore.linkRetry"))

  const retryLinks: StoreDriver["retryLinks"] = (accountId) =>
    db.read(
      sql`SELECT ${sql.literal(COLUMNS)} FROM retries WHERE account_id = ${accountId} ORDER BY created_at, child_batch_id`.pipe(
        Effect.flatMap(decodeLinks)
      )
    )

  return { linkRetry, retryLinks } satisfies Partial<StoreDriver>
}
