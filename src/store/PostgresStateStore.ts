/** The PostgreSQL adapter: the store's services over one database shared by several machines (DESIGN 12). */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { StoreError } from "./Model.ts"
import { runMigrations } from "./Postgres/Migrations.ts"
import { layerClient, nameOf, type PostgresOptions, schemaOf } from "./Postgres/Open.ts"
import { makeAccess, storeClock } from "./Postgres/Transaction.ts"
import { StoreDb } from "./Sql/Db.ts"
import * as Store from "./Sql/Store.ts"

export type { PostgresOptions }

/**
 * The StoreDb over a SqlClient on PostgreSQL whose connections have `schema` first on their search_path
 * (layerClient sets it); migrates the schema first. `url` is only used to name the database in messages.
 */
export const makeDb = (options: Omit<PostgresOptions, "url"> & { readonly url?: PostgresOptions["url"] }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const schema = yield* schemaOf({ url: "", ...options })
    const name = options.url === undefined ? `the PostgreSQL state store (schema ${schema})` : nameOf({ ...options, url: options.url }, schema)
    const access = makeAccess(sql, name)
    yield* runMigrations(access, schema)
    return StoreDb.of({ ...access, now: storeClock(sql, options.clock ?? "database") })
  })

/** The store's services over a PostgreSQL schema. */
export const layer = (options: PostgresOptions): Layer.Layer<Store.StoreServices, StoreError> =>
  Store.layer.pipe(Layer.provide(Layer.effect(StoreDb, makeDb(options))), Layer.provide(layerClient(options)))
