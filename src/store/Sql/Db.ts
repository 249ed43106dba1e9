/**
 * What the store's one SQL runs on: a SqlClient and its dialect's guards. Each dialect opens, locks and
 * retries in its own way (Sqlite/Transaction.ts, Postgres/Transaction.ts); the statements are shared.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Context, Effect } from "effect"
import type { StoreError } from "../Model.ts"

/** A dialect's guard of statements: SqlErrors become StoreErrors (or are retried first). */
export type Guarded = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, SqlError> | StoreError, R>

export interface Db {
  readonly sql: SqlClient.SqlClient
  /** Statements outside a transaction. */
  readonly read: Guarded
  /** One write transaction. */
  readonly write: Guarded
  /**
   * A write whose outcome, when its COMMIT is cut off, is settled by `readBack` (PostgreSQL, DESIGN 12).
   * SQLite's commits are local: it is `write`.
   */
  readonly writeOrReadBack: <A, E, R, E2, R2>(
    self: Effect.Effect<A, E, R>,
    readBack: Effect.Effect<A, E2, R2>
  ) => Effect.Effect<A, Exclude<E, SqlError> | StoreError | Exclude<E2, SqlError>, R | R2>
  /** Now in epoch ms on the store's clock, as SQL: leases, registers and retry links are stamped by it. */
  readonly now: Effect.Effect<Fragment>
}

/** The Db of the store being opened: each dialect's layer provides it (SqliteStateStore.ts, PostgresStateStore.ts). */
export class StoreDb extends Context.Tag("store/StoreDb")<StoreDb, Db>() {}

/** Whether the store is PostgreSQL: for the statements whose SQL differs by more than a clause. */
export const isPostgres = (sql: SqlClient.SqlClient): boolean => sql.onDialectOrElse({ pg: () => true, orElse: () => false })

export const chunksOf = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** SQLite binds at most 32,766 parameters a statement: its lists go 500 at a time. */
const SQLITE_LIST = 500

/**
 * `column` is one of `values`, as one condition per statement: PostgreSQL takes the whole list as one
 * array parameter (one statement however long the list); SQLite an IN list per 500 values.
 */
export const oneOf = (
  sql: SqlClient.SqlClient,
  column: Fragment,
  values: ReadonlyArray<string> | ReadonlyArray<number>,
  type: "text" | "int" = "text"
): ReadonlyArray<Fragment> =>
  sql.onDialectOrElse({
    pg: () => [sql`${column} = ANY(${pgArray(sql, values, type)})`],
    orElse: () => chunksOf<string | number>(values, SQLITE_LIST).map((chunk) => sql`${column} IN ${sql.in(chunk)}`)
  })

/** A list as one PostgreSQL array parameter: int[] for numbers, text[] through JSON (which does the quoting). */
export const pgArray = (sql: SqlClient.SqlClient, values: ReadonlyArray<string> | ReadonlyArray<number>, type: "text" | "int"): Fragment =>
  type === "int"
    ? sql`${`{${values.map((n) => Math.trunc(Number(n))).join(",")}}`}::int[]`
    : sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`

/** One query per part of a list (`oneOf`), the answers joined in order. */
export const eachPart = <A, E, R>(
  parts: ReadonlyArray<Fragment>,
  query: (where: Fragment) => Effect.Effect<ReadonlyArray<A>, E, R>
): Effect.Effect<ReadonlyArray<A>, E, R> =>
  parts.length === 1 ? query(parts[0]) : Effect.map(Effect.forEach(parts, query), (found) => found.flat())
