/**
 * The bench's PostgreSQL: a fresh schema per measured run in the database of `--pg-url`, dropped with
 * CASCADE afterwards, and reads under the store (row timings, PostgreSQL or SQLite) that the figures are taken from.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Redacted } from "effect"
import { randomUUID } from "node:crypto"

export const DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/test"

const admin = (url: string) =>
  PgClient.make({ url: Redacted.make(url), maxConnections: 2, connectTimeout: "5 seconds" }).pipe(Effect.provide(Reactivity.layer))

const onAdmin = <A>(url: string, f: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(admin(url), f)).pipe(Effect.orDie))

/** The URL a person may read: without its password. */
export const shownUrl = (url: string) => {
  if (!URL.canParse(url)) return "the PostgreSQL database of --pg-url"
  const u = new URL(url)
  u.password = ""
  return u.toString()
}

export const createSchema = async (url: string, prefix: string): Promise<string> => {
  const schema = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  await onAdmin(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  return schema
}

export const dropSchema = (url: string, schema: string): Promise<void> =>
  onAdmin(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`).then(() => undefined)

/** Runs `f` on a fresh schema, dropped after whatever happens. */
export const withSchema = async <A>(url: string, prefix: string, f: (schema: string) => Promise<A>): Promise<A> => {
  const schema = await createSchema(url, prefix)
  try {
    return await f(schema)
  } finally {
    await dropSchema(url, schema)
  }
}

/** The store's URL for `payouts --state`: the database with `?schema=NAME`. */
export const storeUrl = (url: string, schema: string) => {
  const u = new URL(url)
  u.searchParams.set("schema", schema)
  return u.toString()
}

export interface RowTimes {
  readonly rows: number
  readonly firstIntentAt: number
  readonly lastSubmittedAt: number
  readonly lastFinalAt: number
  /** The first row to reach a final status: in a run of one operator, when the breaker's probe window opened. */
  readonly firstFinalAt: number
  /** Rows submitted after `firstFinalAt`. */
  readonly submittedAfterFirstFinal: number
  /** Rows per state (the store's own words). */
  readonly states: Record<string, number>
  readonly batches: ReadonlyArray<{ readonly batchId: string; readonly firstIntentAt: number; readonly lastSubmittedAt: number; readonly lastFinalAt: number }>
}

/** Every row's timings in the store of `schema` (ms since epoch, the database clock), all batches together. */
/** RowTimes from the three aggregate queries both stores answer alike. */
const timesOf = (
  times: {
    readonly rows: number
    readonly first: number | null
    readonly submitted: number | null
    readonly final: number | null
    readonly firstFinal: number | null
    readonly after: number | null
  },
  states: ReadonlyArray<{ readonly state: string; readonly n: number }>,
  batches: ReadonlyArray<{ readonly batchId: string; readonly first: number; readonly submitted: number; readonly final: number }>
): RowTimes => ({
  batches: batches.map((b) => ({ batchId: b.batchId, firstIntentAt: b.first, lastSubmittedAt: b.submitted, lastFinalAt: b.final })),
  rows: times.rows,
  firstIntentAt: times.first ?? 0,
  lastSubmittedAt: times.submitted ?? 0,
  lastFinalAt: times.final ?? 0,
  firstFinalAt: times.firstFinal ?? 0,
  submittedAfterFirstFinal: Number(times.after ?? 0),
  states: Object.fromEntries(states.map((x) => [x.state, x.n]))
})

export const rowTimes = (url: string, schema: string): Promise<RowTimes> =>
  onAdmin(url, (sql) =>
    Effect.gen(function* () {
      const [times] = yield* sql<Parameters<typeof timesOf>[0]>`
        SELECT count(*)::int AS rows, min(intent_at)::float8 AS first, max(submitted_at)::float8 AS submitted, max(final_at)::float8 AS final,
          min(final_at)::float8 AS "firstFinal",
          (SELECT count(*)::int FROM ${sql(schema)}.rows WHERE submitted_at > (SELECT min(final_at) FROM ${sql(schema)}.rows)) AS after
        FROM ${sql(schema)}.rows`
      const states = yield* sql<{ state: string; n: number }>`SELECT state, count(*)::int AS n FROM ${sql(schema)}.rows GROUP BY state`
      const batches = yield* sql<{ batchId: string; first: number; submitted: number; final: number }>`
        SELECT batch_id AS "batchId", min(intent_at)::float8 AS first, max(submitted_at)::float8 AS submitted, max(final_at)::float8 AS final
        FROM ${sql(schema)}.rows GROUP BY batch_id ORDER BY 2`
      return timesOf(times, states, batches)
    })
  )

/** The same timings from a SQLite store file (the tables are the same). */
export const sqliteRowTimes = (filename: string): Promise<RowTimes> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqliteClient.make({ filename, readonly: true })
        const [times] = yield* sql<Parameters<typeof timesOf>[0]>`
          SELECT count(*) AS rows, min(intent_at) AS first, max(submitted_at) AS submitted, max(final_at) AS final,
            min(final_at) AS firstFinal, (SELECT count(*) FROM rows WHERE submitted_at > (SELECT min(final_at) FROM rows)) AS after
          FROM rows`
        const states = yield* sql<{ state: string; n: number }>`SELECT state, count(*) AS n FROM rows GROUP BY state`
        const batches = yield* sql<{ batchId: string; first: number; submitted: number; final: number }>`
          SELECT batch_id AS batchId, min(intent_at) AS first, max(submitted_at) AS submitted, max(final_at) AS final
          FROM rows GROUP BY batch_id ORDER BY 2`
        return timesOf(times, states, batches)
      })
    ).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
  )

/** Whether the database answers; the reason when it does not. */
export const unreachable = (url: string): Promise<string | undefined> =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(admin(url), (sql) => sql`SELECT 1`)).pipe(
      Effect.timeoutFail({ duration: "8 seconds", onTimeout: () => "no answer within 8 seconds" }),
      Effect.as(undefined),
      Effect.catchAll((error) => Effect.succeed(typeof error === "string" ? error : String((error as { message?: unknown }).message ?? error)))
    )
  )
