/** The PostgreSQL adapter of the StateStore port: one store shared by several machines (DESIGN 12). */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { StoreError } from "./Model.ts"
import { makeAccount } from "./Postgres/Account.ts"
import { makeBatches } from "./Postgres/Batches.ts"
import { makeClaims } from "./Postgres/Claims.ts"
import { runMigrations } from "./Postgres/Migrations.ts"
import { makeMirror } from "./Postgres/Mirror.ts"
import { layerClient, nameOf, type PostgresOptions, schemaOf } from "./Postgres/Open.ts"
import { storeClock } from "./Postgres/Queries.ts"
import { makeRegisters } from "./Postgres/Registers.ts"
import { makeRetries } from "./Postgres/Retries.ts"
import { postgresMatches } from "./Postgres/Matches.ts"
import { makeRowReads } from "./RowReads.ts"
import { type Access, makeAccess } from "./Postgres/Transaction.ts"
import { fromDriver, StateStore } from "./StateStore.ts"
import type { StoreDriver } from "./StoreDriver.ts"

export type { PostgresOptions }

/** The flat operations over a PostgreSQL database (the contract suite reaches them through the port). */
const makeDriver = (db: Access, clock: "database" | "effect"): StoreDriver => {
  const now = storeClock(db.sql, clock)
  return {
    ...makeBatches(db, now),
    ...makeClaims(db, now),
    ...makeRowReads(db.sql, db.read, postgresMatches(db.sql)),
    ...makeMirror(db),
    ...makeAccount(db),
    ...makeRegisters(db, now),
    ...makeRetries(db, now)
  }
}

/**
 * The store over a SqlClient on PostgreSQL whose connections have `schema` first on their search_path
 * (layerClient sets it); migrates the schema first. `url` is only used to name the database in messages.
 */
export const make = (options: Omit<PostgresOptions, "url"> & { readonly url?: PostgresOptions["url"] }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const schema = yield* schemaOf({ url: "", ...options })
    const name = options.url === undefined ? `the PostgreSQL state store (schema ${schema})` : nameOf({ ...options, url: options.url }, schema)
    const db = makeAccess(sql, name)
    yield* runMigrations(db, schema)
    return StateStore.of(fromDriver(makeDriver(db, options.clock ?? "database")))
  })

export const layer = (options: PostgresOptions): Layer.Layer<StateStore, StoreError> =>
  Layer.effect(StateStore, make(options)).pipe(Layer.provide(layerClient(options)))
