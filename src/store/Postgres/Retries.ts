/**
 * `payouts retry` links on PostgreSQL: the unique keys on the child and on a parent's whole retry make
 * two machines retrying one parent at the same moment agree on a single child (the second insert waits
 * for the first, then does nothing and reads the first's link). Row links go in the same transaction:
 * the unique key on the parent row makes a second child wait, then find the row taken and roll back.
 * Times are the store's clock.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Chunk, Effect, Schema } from "effect"
import { RetryLink, type RetryLinked, RowRetry } from "../Model.ts"
import { linkOf, RowsTaken, rowRetryRecord, takenOf } from "../RowRetries.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import type { Access } from "./Transaction.ts"

const decodeLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RetryLink))(rows))
const decodeRowLinks = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(RowRetry))(rows))

const COLUMNS = "parent_batch_id, child_batch_id, generation, created_at, fixes"
const ROW_COLUMNS = "parent_batch_id, parent_idx, parent_line, child_batch_id, child_idx, child_line"
const INSERT_CHUNK = 500

export const makeRetries = (db: Access, storeNow: Effect.Effect<Fragment>) => {
  const { sql } = db

  // A whole retry: the parent's whole link first, the one a second retry of the same parent must find.
  const linkFor = (accountId: string, link: Omit<RetryLink, "createdAt" | "fixes">, fixes: boolean) =>
    (fixes
      ? sql`SELECT ${sql.literal(COLUMNS)} FROM retries WHERE account_id = ${accountId} AND child_batch_id = ${link.childBatchId}`
      : sql`SELECT ${sql.literal(COLUMNS)} FROM retries
      WHERE account_id = ${accountId} AND ((parent_batch_id = ${link.parentBatchId} AND fixes = 0) OR child_batch_id = ${link.childBatchId})
      ORDER BY (parent_batch_id = ${link.parentBatchId} AND fixes = 0) DESC LIMIT 1`).pipe(
      Effect.flatMap(decodeLinks),
      Effect.map((found) => found[0])
    )

  // Safe to run twice: inserts that do nothing when present. A lost COMMIT is reported (Unavailable):
  // run again, the same links are found.
  const linkRetryRows: StoreDriver["linkRetryRows"] = (accountId, { fixes, link, rows }) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`INSERT INTO retries (account_id, parent_batch_id, child_batch_id, generation, created_at, fixes)
          VALUES (${accountId}, ${link.parentBatchId}, ${link.childBatchId}, ${link.generation}, ${yield* storeNow}, ${fixes ? 1 : 0})
          ON CONFLICT DO NOTHING`
        const inForce = yield* linkFor(accountId, link, fixes)
        if (inForce.childBatchId !== link.childBatchId || inForce.parentBatchId !== link.parentBatchId || rows.length === 0) {
          return { _tag: "Linked", link: inForce } satisfies RetryLinked
        }
        for (const chunk of Chunk.toReadonlyArray(Chunk.chunksOf(Chunk.unsafeFromArray([...rows]), INSERT_CHUNK))) {
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
    ).pipe(
      Effect.catchTag("RowsTaken", (e) => Effect.succeed<RetryLinked>({ _tag: "Taken", taken: e.taken })),
      Effect.withSpan("StateStore.linkRetryRows")
    )

  const linkRetry: StoreDriver["linkRetry"] = (accountId, link) =>
    Effect.flatMap(linkRetryRows(accountId, { link, fixes: false, rows: [] }), linkOf)

  const retryLinks: StoreDriver["retryLinks"] = (accountId) =>
    db.read(
      sql`SELECT ${sql.literal(COLUMNS)} FROM retries WHERE account_id = ${accountId} ORDER BY created_at, child_batch_id`.pipe(
        Effect.flatMap(decodeLinks)
      )
    )

  const rowRetries: StoreDriver["rowRetries"] = (accountId, batchId) =>
    db.read(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND parent_batch_id = ${batchId}
        UNION ALL
        SELECT ${sql.literal(ROW_COLUMNS)} FROM rows_retried WHERE account_id = ${accountId} AND child_batch_id = ${batchId}`.pipe(
        Effect.flatMap(decodeRowLinks)
      )
    )

  return { linkRetry, retryLinks, linkRetryRows, rowRetries } satisfies Partial<StoreDriver>
}
