/**
 * The soak's own connection to the workers' PostgreSQL database (application_name `payouts-soak`, so
 * cutting the workers' connections spares it): a fresh schema for the store, the lease holders while
 * the workers run, the cut itself, and the rows' tokens and states at the end.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Redacted, Scope } from "effect"

export interface StoreRow {
  readonly batchId: string
  readonly rowId: string | null
  readonly token: string
  readonly state: string
}

export interface SoakDb {
  /** The store's URL for the workers: the given one with `?schema=`. */
  readonly storeUrl: string
  readonly schema: string
  /** The lease owners of the batches under way (empty before the first worker made the tables). */
  readonly leaseOwners: () => Promise<ReadonlyArray<string>>
  /** `pg_terminate_backend` on every connection of the workers (application_name 'payouts'): how many. */
  readonly cutWorkers: () => Promise<number>
  readonly rows: () => Promise<ReadonlyArray<StoreRow>>
  readonly dropSchema: () => Promise<void>
  readonly close: () => Promise<void>
}

/** The URL as it may be printed: without a password. */
export const shownUrl = (url: string) => {
  if (!URL.canParse(url)) return url
  const u = new URL(url)
  u.password = ""
  return u.toString()
}

export const openSoakDb = async (url: string, seed: number): Promise<SoakDb> => {
  const base = new URL(url)
  base.searchParams.delete("schema")
  const scope = Effect.runSync(Scope.make())
  const sql = await Effect.runPromise(
    Scope.extend(
      PgClient.make({ url: Redacted.make(base.toString()), maxConnections: 2, connectTimeout: "5 seconds", applicationName: "payouts-soak" }),
      scope
    ).pipe(Effect.provide(Reactivity.layer))
  )
  const run = <A>(query: Effect.Effect<A, unknown>) => Effect.runPromise(query)
  const schema = `payouts_soak_${seed}_${Date.now().toString(36)}`
  await run(sql`CREATE SCHEMA ${sql(schema)}`)
  const storeUrl = new URL(base.toString())
  storeUrl.searchParams.set("schema", schema)
  return {
    storeUrl: storeUrl.toString(),
    schema,
    leaseOwners: () =>
      run(
        sql<{ owner: string }>`SELECT lease_owner AS owner FROM ${sql(schema)}.batches WHERE lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL`.pipe(
          Effect.map((rows) => rows.map((r) => r.owner)),
          Effect.orElseSucceed((): ReadonlyArray<string> => [])
        )
      ),
    cutWorkers: () =>
      run(
        sql<{ cut: boolean }>`SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE application_name = 'payouts' AND datname = current_database()`.pipe(
          Effect.map((rows) => rows.filter((r) => r.cut).length)
        )
      ),
    rows: () =>
      run(
        sql<{ batchId: string; rowId: string | null; token: string; state: string }>`SELECT batch_id AS "batchId", row_id AS "rowId", token, state FROM ${sql(schema)}.rows`
      ),
    dropSchema: () => run(sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`).then(() => undefined),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
