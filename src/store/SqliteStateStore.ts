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
import { makeWalSync, type SyncFile } from "./Sqlite/WalSync.ts"
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

/** The WAL file to sync after our commits, when the database is a file in WAL mode. */
const walOf = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const [main] = yield* sql<{ readonly file: string }>`SELECT file FROM pragma_database_list WHERE name = 'main'`
    const [journal] = yield* sql<{ readonly journalMode: string }>`PRAGMA journal_mode`
    return main !== undefined && main.file !== "" && journal?.journalMode === "wal" ? `${main.file}-wal` : undefined
  }).pipe(catchSql)

/** The store over any SqlClient on a SQLite database; migrates it first. */
export const make = (options: { readonly lockTimeout?: Duration.DurationInput; readonly syncFile?: SyncFile } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const walPath = yield* walOf(sql)
    const wal = walPath === undefined
      ? undefined
      : yield* Effect.acquireRelease(Effect.sync(() => makeWalSync(walPath, options.syncFile)), (wal) => wal.close)
    const write = makeWriteTransaction(sql, options.lockTimeout ?? "60 seconds", wal)
    yield* write(runMigrations).pipe(Effect.catchTag("MigrationError", Effect.die))
    return StateStore.of(fromDriver(makeDriver(sql, write)))
  })

export const layer = (options: SqliteOptions): Layer.Layer<StateStore, StoreError> =>
  Layer.scoped(StateStore, make({ lockTimeout: options.lockTimeout })).pipe(Layer.provide(layerClient(options)))
