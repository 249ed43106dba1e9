/** The SQLite adapter: the store's services (the shared SQL of Sql/) over a SQLite file. */
import { SqlClient } from "@effect/sql"
import { Clock, type Duration, Effect, Layer } from "effect"
import type { StoreError } from "./Model.ts"
import { runMigrations } from "./Sqlite/Migrations.ts"
import { layerClient, type SqliteOptions } from "./Sqlite/Open.ts"
import { catchSql, makeWriteTransaction } from "./Sqlite/Transaction.ts"
import { makeWalSync, type SyncFile } from "./Sqlite/WalSync.ts"
import { StoreDb } from "./Sql/Db.ts"
import * as Store from "./Sql/Store.ts"

export type { SqliteOptions }

/** The WAL file to sync after our commits, when the database is a file in WAL mode. */
const walOf = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const [main] = yield* sql<{ readonly file: string }>`SELECT file FROM pragma_database_list WHERE name = 'main'`
    const [journal] = yield* sql<{ readonly journalMode: string }>`PRAGMA journal_mode`
    return main !== undefined && main.file !== "" && journal?.journalMode === "wal" ? `${main.file}-wal` : undefined
  }).pipe(catchSql)

/** The StoreDb over any SqlClient on a SQLite database; migrates it first. */
export const makeDb = (options: { readonly lockTimeout?: Duration.DurationInput; readonly syncFile?: SyncFile } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const walPath = yield* walOf(sql)
    const wal = walPath === undefined
      ? undefined
      : yield* Effect.acquireRelease(Effect.sync(() => makeWalSync(walPath, options.syncFile)), (wal) => wal.close)
    const write = makeWriteTransaction(sql, options.lockTimeout ?? "60 seconds", wal)
    yield* write(runMigrations).pipe(Effect.catchTag("MigrationError", Effect.die))
    // Every process sharing a SQLite file runs on one machine: the Effect Clock is the store's clock.
    return StoreDb.of({ sql, read: catchSql, write, writeOrReadBack: (self) => write(self), now: Effect.map(Clock.currentTimeMillis, (ms) => sql`${ms}`) })
  })

/** The store's services over any SqlClient on a SQLite database (a test's own client and WAL sync). */
export const layerOver = (options: { readonly lockTimeout?: Duration.DurationInput; readonly syncFile?: SyncFile } = {}) =>
  Store.layer.pipe(Layer.provide(Layer.scoped(StoreDb, makeDb(options))))

/** The store's services over a SQLite file (or ":memory:"). */
export const layer = (options: SqliteOptions): Layer.Layer<Store.StoreServices, StoreError> =>
  layerOver({ lockTimeout: options.lockTimeout }).pipe(Layer.provide(layerClient(options)))
