/**
 * The PostgreSQL adapter for the store's contract suite: a location is a fresh schema in the database
 * of PAYOUTS_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), dropped with CASCADE
 * when the test's scope closes. The suites run on it when the database answers; else they are skipped
 * with a loud line, unless PAYOUTS_REQUIRE_POSTGRES=1, which makes an unreachable database a failure.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { randomUUID } from "node:crypto"
import type { StoreError } from "../../src/store/Model.ts"
import { describeFailure } from "../../src/store/Postgres/Transaction.ts"
import * as PostgresStateStore from "../../src/store/PostgresStateStore.ts"
import { type StateStoreShape, handlesOf } from "../kit/Store.ts"

const rawUrl = process.env.PAYOUTS_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
export const DATABASE_URL = Redacted.make(rawUrl)

/** The test database as messages may name it: without a password. */
export const DATABASE_NAME = URL.canParse(rawUrl)
  ? (() => {
      const url = new URL(rawUrl)
      return `${url.protocol}//${url.username === "" ? "" : `${url.username}@`}${url.host}${url.pathname}`
    })()
  : "the test database (PAYOUTS_TEST_DATABASE_URL)"

/** A client on the test database (no schema set), for making schemas and looking under the store. */
export const adminClient = PgClient.make({ url: DATABASE_URL, maxConnections: 4, connectTimeout: "5 seconds" }).pipe(
  Effect.provide(Reactivity.layer)
)

const onAdmin = <A>(f: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.scoped(Effect.flatMap(adminClient, f)).pipe(Effect.orDie)

/** A fresh schema, dropped with everything in it when the scope closes. */
export const freshSchema: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.gen(function* () {
    const schema = `payouts_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`
    yield* onAdmin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
    return schema
  }),
  (schema) => onAdmin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`)
)

export type PostgresStoreOptions = Omit<PostgresStateStore.PostgresOptions, "url" | "schema">

/** A store on `schema`, in a scope of its own so a test can close it mid-way (a crash, a second process). */
export const openPostgres = (
  schema: string,
  options: PostgresStoreOptions = {}
): Effect.Effect<{ readonly store: StateStoreShape; readonly close: Effect.Effect<void> }, StoreError> =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      PostgresStateStore.layer({ url: DATABASE_URL, schema, maxConnections: 5, ...options }),
      scope
    ).pipe(Effect.tapError(() => Scope.close(scope, Exit.void)))
    return { store: handlesOf(context), close: Scope.close(scope, Exit.void) }
  })

/**
 * The contract suite's PostgreSQL adapter. Its leases run on the Effect Clock, as SQLite's do, so the
 * suite's TestClock drives them; the database clock (the default) has its tests in postgres-only.test.ts.
 */
export const POSTGRES = {
  name: "PostgreSQL",
  location: freshSchema,
  open: (location: string) => openPostgres(location, { clock: "effect" })
}

/** Why the test database cannot be reached; undefined when it answers. */
export const postgresUnreachable: Effect.Effect<string | undefined> = Effect.scoped(
  Effect.flatMap(adminClient, (sql) => sql`SELECT 1`)
).pipe(
  Effect.timeoutFail({ duration: "8 seconds", onTimeout: () => "no answer within 8 seconds" }),
  Effect.as(undefined),
  Effect.catchAll((error) => Effect.succeed(typeof error === "string" ? error : describeFailure(error)))
)

const unreachable = await Effect.runPromise(postgresUnreachable)
export const postgresReachable: boolean = unreachable === undefined
const required = process.env.PAYOUTS_REQUIRE_POSTGRES === "1"

if (unreachable !== undefined) {
  console.warn(
    required
      ? `!!! PostgreSQL REQUIRED (PAYOUTS_REQUIRE_POSTGRES=1) but ${DATABASE_NAME} is unreachable: ${unreachable}; its suites will fail`
      : `!!! PostgreSQL suites SKIPPED: ${DATABASE_NAME} is unreachable (${unreachable}); set PAYOUTS_TEST_DATABASE_URL or start it, PAYOUTS_REQUIRE_POSTGRES=1 makes this a failure`
  )
}

/** The PostgreSQL adapter when its suites should run: reachable, or required (then they fail loudly). */
export const POSTGRES_ADAPTERS: ReadonlyArray<typeof POSTGRES> = postgresReachable || required ? [POSTGRES] : []
