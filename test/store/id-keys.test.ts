/**
 * Issue 30: one identity for each id. The store keeps an id as written and compares other batches'
 * ids with its canonical form (`id_key`, `canonicalId`), on both stores; a store written before that
 * column existed gets it filled by the migration, computed in TypeScript (SQL's lower() is ASCII only).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { BatchId } from "../../src/domain/Ids.ts"
import { layerClient } from "../../src/store/Sqlite/Open.ts"
import type { StateStoreShape } from "../kit/Store.ts"
import { ACCOUNT, ADAPTERS, newBatch, openStore, rowInput, scopedStoreOn, type StoreAdapter, tempDbPath } from "./fixtures.ts"
import { adminClient, freshSchema, openPostgres, POSTGRES_ADAPTERS } from "./postgres.ts"

/** Ids as a spreadsheet may write them: another case, a full-width hyphen, a Cyrillic capital S (U+0405). */
const WRITTEN = ["S-1001", "S\uFF0D2002", "\u0405-3003", "straße-4"]
/** The same ids as another file writes them. */
const ASKED = ["s-1001", "S-2002", "S-3003", "STRASSE-4", "S-9999"]

const seedOld = (store: StateStoreShape) =>
  store.createBatch(
    newBatch("old"),
    WRITTEN.map((rowId, idx) => rowInput(idx, { rowId }))
  )

const expectCanonicalMatches = (store: StateStoreShape) =>
  Effect.gen(function* () {
    const found = yield* store.batch(ACCOUNT, BatchId.make("new")).existingIds(ASKED)
    expect(found.map((m) => [m.key, m.line])).toEqual([
      ["s-1001", 2],
      ["s-2002", 3],
      ["s-3003", 4],
      ["strasse-4", 5]
    ])
    // Kept as written.
    const row = yield* store.batch(ACCOUNT, BatchId.make("old")).getRow(2)
    expect(Option.map(row, (r) => r.rowId)).toEqual(Option.some("\u0405-3003"))
  })

describe.each(ADAPTERS)("ids in canonical form ($name)", (adapter: StoreAdapter) => {
  it.scoped("existingIds finds an id of another batch written with another case, width or look-alike letter", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      yield* seedOld(store)
      yield* expectCanonicalMatches(store)
    })
  )
})

describe("a store written before id keys", () => {
  it.scoped("SQLite: the migration fills id_key for the rows already there", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const first = yield* openStore(filename)
      yield* seedOld(first.store)
      yield* first.close
      // Back to the schema before the migration: no id_key, the old index, the migration not applied.
      yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP INDEX rows_by_id_key`
        yield* sql`ALTER TABLE rows DROP COLUMN id_key`
        yield* sql`CREATE INDEX rows_by_row_id ON rows (account_id, row_id) WHERE row_id IS NOT NULL`
        // The migrator runs what comes after the latest applied: the later ones are undone too.
        yield* sql`DROP TABLE rows_retried`
        yield* sql`DROP TABLE console_users`
        yield* sql`DROP TABLE console_sessions`
        yield* sql`ALTER TABLE account_halts DROP COLUMN lifted_reason`
        yield* sql`DELETE FROM store_migrations WHERE migration_id >= 8`
      }).pipe(Effect.provide(layerClient({ filename, busyTimeout: "250 millis" })), Effect.orDie)
      const second = yield* openStore(filename)
      yield* Effect.addFinalizer(() => second.close)
      yield* expectCanonicalMatches(second.store)
    })
  )

  it.scoped.skipIf(POSTGRES_ADAPTERS.length === 0)("PostgreSQL: the migration fills id_key for the rows already there", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const first = yield* openPostgres(schema)
      yield* seedOld(first.store)
      yield* first.close
      const sql = yield* adminClient
      yield* Effect.gen(function* () {
        yield* sql`ALTER TABLE ${sql(schema)}.rows DROP COLUMN id_key`
        yield* sql`CREATE INDEX rows_by_row_id ON ${sql(schema)}.rows (account_id, row_id) WHERE row_id IS NOT NULL`
        yield* sql`DELETE FROM ${sql(schema)}.store_migrations WHERE name = 'id_keys'`
      }).pipe(Effect.orDie)
      const second = yield* openPostgres(schema)
      yield* Effect.addFinalizer(() => second.close)
      yield* expectCanonicalMatches(second.store)
    })
  )
})
