/** The SQLite adapter of the StateStore port. */
import { SqlClient } from "@effect/sql"
import { type Duration, Effect, Layer } from "effect"
import type { StoreError } from "./Model.ts"
import { makeAccount } from "./Sqlite/Account.ts"
import { makeBatches } from "./Sqlite/Batches.ts"
import { makeMirror } from "./Sqlite/Mirror.ts"
import { runMigrations } from "./Sqlite/Migrations.ts"
import { layerClient, type SqliteOptions } from "./Sqlite/Open.ts"
import { makeRegisters } from "./Sqlite/Registers.ts"
import { makeRetries } from "./Sqlite/Retries.ts"
import { makeRowReads } from "./RowReads.ts"
import { sqliteMatches } from "./Sqlite/Matches.ts"
import { makeRows } from "./Sqlite/Rows.ts"
import { catchSql, makeWriteTransaction } from "./Sqlite/Transaction.ts"
import { fromDriver, StateStore } from "./StateStore.ts"
import type { StoreDriver } from "./StoreDriver.ts"

export type { SqliteOptions }

/** The flat operations over a SQLite database (the contract suite reaches them through the port). */
const makeDriver = (sql: SqlClient.SqlClient, write: ReturnType<typeof makeWriteTransaction>): StoreDriver => ({
  ...makeBatches(sql, write),
  ...makeRows(sql, write),
  ...makeRowReads(sql, catchSql, sqliteMatches(sql)),
  ...makeMirror(sql, write),
  ...makeAccount(sql, write),
  ...makeRegisters(sql, write),
  ...makeRetries(sql, write)
})

/** The store over any SqlClient on a SQLite database; migrates it first. */
export const make = (options: { readonly lockTimeout?: Duration.DurationInput } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const write = makeWriteTransaction(sql, options.lockTimeout ?? "60 seconds")
    yield* write(runMigrations).pipe(Effect.catchTag("MigrationError", Effect.die))
    return StateStore.of(fromDriver(makeDriver(sql, write)))
  })

export const layer = (options: SqliteOptions): Layer.Layer<StateStore, StoreError> =>
  Layer.effect(StateStore, make({ lockTimeout: options.lockTimeout })).pipe(Layer.provide(layerClient(options)))
