/**
 * SQL shared by the PostgreSQL adapter: lists as one array parameter (one statement, however long the
 * list), the lease clock, and the share-locked lease every row write is conditional on. Column lists
 * and row decoders are the SQLite adapter's: both adapters keep the same columns under the same names.
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect } from "effect"
import type { Fence } from "../Model.ts"

export {
  BATCH_COLUMNS,
  decodeBatches,
  decodeCounts,
  decodeEarliest,
  decodeEvents,
  decodeMatches,
  decodePending,
  decodeRows,
  EVENT_COLUMNS,
  ROW_COLUMNS
} from "../Sqlite/Queries.ts"

/** Integers as one int[] parameter. */
export const intArray = (sql: SqlClient.SqlClient, values: ReadonlyArray<number>): Fragment =>
  sql`${`{${values.map((n) => Math.trunc(n)).join(",")}}`}::int[]`

/** Strings as one text[] built from a JSON parameter: JSON.stringify does the quoting. */
export const textArray = (sql: SqlClient.SqlClient, values: ReadonlyArray<string>): Fragment =>
  sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`

/** Now in epoch milliseconds, from the database's clock: the same clock for every machine. */
export const DATABASE_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

/** Now on the store's clock, as SQL: the database's (default) or the Effect Clock's (tests, like SQLite). */
export const storeClock = (sql: SqlClient.SqlClient, clock: "database" | "effect"): Effect.Effect<Fragment> =>
  clock === "database"
    ? Effect.succeed(sql.literal(DATABASE_NOW))
    // Whole milliseconds, as the database's clock gives them: a TestClock that stopped at a sleeper's
    // fractional wake time would otherwise be refused as a bigint.
    : Effect.map(Clock.currentTimeMillis, (ms) => sql`${Math.floor(ms)}::bigint`)

/**
 * The CTE `lease`: the batch's row, share-locked, when `fence` is its lease (unexpired at `now` when
 * given). Share locks let writers of the same lease run together, while a takeover (an UPDATE of the
 * row) waits for them and they see any takeover committed before them: a row write conditional on
 * `EXISTS (SELECT 1 FROM lease)` is fenced in the same statement. Without a fence it only holds the
 * batch against deleteBatch.
 */
export const leaseCte = (
  sql: SqlClient.SqlClient,
  accountId: string,
  batchId: string,
  fence: Fence | undefined,
  now?: Fragment
): Fragment =>
  sql`lease AS (SELECT lease_owner FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}
    ${fence === undefined ? sql`` : sql`AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}`}
    ${now === undefined ? sql`` : sql`AND lease_expires_at > ${now}`}
    FOR SHARE)`
