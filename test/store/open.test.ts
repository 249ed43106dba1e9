import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { existsSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { layerClient } from "../../src/store/Sqlite/Open.ts"
import { MIGRATIONS_TABLE } from "../../src/store/Sqlite/Migrations.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { ACCOUNT, newBatch, openStore, rowInputs, tempDbPath } from "./fixtures.ts"
import { scopedTempDir } from "../kit/TempDir.ts"
import { BatchId } from "../../src/domain/Ids.ts"

const mode = (path: string) => statSync(path).mode & 0o777

const inspect = (filename: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const migrations = yield* sql.unsafe<{ migrationId: number }>(`SELECT migration_id FROM ${MIGRATIONS_TABLE}`)
    const [journal] = yield* sql.unsafe<{ journalMode: string }>("PRAGMA journal_mode")
    const [sync] = yield* sql.unsafe<{ synchronous: number }>("PRAGMA synchronous")
    const [busy] = yield* sql.unsafe<{ timeout: number }>("PRAGMA busy_timeout")
    return { migrations: migrations.map((m) => m.migrationId), journal: journal.journalMode, sync: sync.synchronous, busy: busy.timeout }
  }).pipe(Effect.provide(layerClient({ filename, busyTimeout: "250 millis" })))

describe("opening the SQLite state store", () => {
  it.scoped("creates the directory 0700 and the file 0600, WAL with synchronous=FULL", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      expect(existsSync(dirname(filename))).toBe(false)
      const { close, store } = yield* openStore(filename)
      yield* store.createBatch(newBatch("b1"), rowInputs(3))
      expect(mode(dirname(filename))).toBe(0o700)
      expect(mode(filename)).toBe(0o600)
      expect(mode(`${filename}-wal`)).toBe(0o600)
      yield* close
      const seen = yield* inspect(filename)
      expect(seen).toEqual({ migrations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], journal: "wal", sync: 2, busy: 250 })
    })
  )

  it.scoped("keeps an existing directory as it is", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const filename = join(dir, "payouts.db")
      const before = mode(dir)
      const { close } = yield* openStore(filename)
      yield* close
      expect(mode(dir)).toBe(before)
      expect(mode(filename)).toBe(0o600)
    })
  )

  it.scoped("applies migrations once: reopening keeps data and runs nothing again", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const first = yield* openStore(filename)
      yield* first.store.createBatch(newBatch("b1"), rowInputs(5))
      yield* first.close
      const second = yield* openStore(filename)
      const batch = yield* second.store.batch(ACCOUNT, BatchId.make("b1")).getBatch()
      expect(Option.isSome(batch)).toBe(true)
      expect((yield* second.store.batch(ACCOUNT, BatchId.make("b1")).countByState()).validated).toBe(5)
      yield* second.close
      expect((yield* inspect(filename)).migrations).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    })
  )

  it.scoped("two stores opening a fresh file at once both end up migrated", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const [a, b] = yield* Effect.all([openStore(filename), openStore(filename)], { concurrency: 2 })
      yield* a.store.createBatch(newBatch("b1"), rowInputs(2))
      expect((yield* b.store.batch(ACCOUNT, BatchId.make("b1")).countByState()).validated).toBe(2)
      yield* Effect.all([a.close, b.close])
    })
  )

  it.scoped("an unopenable path is a typed StoreError, not a defect", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      writeFileSync(join(dir, "not-a-dir"), "")
      const filename = join(dir, "not-a-dir", "payouts.db")
      const error = yield* Layer.build(SqliteStateStore.layer({ filename })).pipe(
        Effect.scoped,
        Effect.flip
      )
      expect(error._tag).toBe("StoreError")
      expect(error.reason).toBe("Unavailable")
    })
  )

  it.scoped("an in-memory store works for tests of other modules", () =>
    Effect.gen(function* () {
      const { close, store } = yield* openStore(":memory:")
      yield* store.createBatch(newBatch("b1"), rowInputs(2))
      expect((yield* store.account(ACCOUNT).listBatches()).map((b) => b.total)).toEqual([2])
      yield* close
    })
  )
})
