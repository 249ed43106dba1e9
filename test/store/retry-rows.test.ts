/**
 * Row links of `payouts retry` (issue 31, correct and re-pay), on every adapter: a parent may have
 * several `--fix` children but one whole retry; a parent row is paid again by one child only, even
 * when two children ask at the same moment; a child asking again finds its own links.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BatchId } from "../../src/domain/Ids.ts"
import type { RowRetry } from "../../src/store/Model.ts"
import { layerClient } from "../../src/store/Sqlite/Open.ts"
import type { StateStoreShape } from "../kit/Store.ts"
import { ACCOUNT, ADAPTERS, openStore, scopedStoreOn, tempDbPath } from "./fixtures.ts"
import { adminClient, freshSchema, openPostgres, POSTGRES_ADAPTERS } from "./postgres.ts"

const P = BatchId.make("parent00000000aa")
const F1 = BatchId.make("fixchild000000f1")
const F2 = BatchId.make("fixchild000000f2")
const W = BatchId.make("wholechild0000w1")

const row = (child: BatchId, childIdx: number, parentIdx: number): RowRetry => ({
  parentBatchId: P,
  parentIdx,
  parentLine: parentIdx + 2,
  childBatchId: child,
  childIdx,
  childLine: childIdx + 2
})

describe.each(ADAPTERS)("retry row links ($name)", (adapter) => {
  it.scoped("fix children of one parent each take their rows once; a whole retry stays one per parent", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      const first = yield* account.linkRetryRows({ link: { parentBatchId: P, childBatchId: F1, generation: 1 }, fixes: true, rows: [row(F1, 0, 3)] })
      expect(first._tag).toBe("Linked")
      // The same child again (the same fix file retried): its links are found, nothing new.
      const again = yield* account.linkRetryRows({ link: { parentBatchId: P, childBatchId: F1, generation: 1 }, fixes: true, rows: [row(F1, 0, 3)] })
      expect(again).toMatchObject({ _tag: "Linked", link: { childBatchId: F1, fixes: true } })
      // Another fix file of the same parent: its other row is linked, a row F1 holds is refused whole.
      const taken = yield* account.linkRetryRows({ link: { parentBatchId: P, childBatchId: F2, generation: 1 }, fixes: true, rows: [row(F2, 0, 5), row(F2, 1, 3)] })
      expect(taken).toEqual({ _tag: "Taken", taken: [row(F1, 0, 3)] })
      expect((yield* account.retryLinks()).map((l) => l.childBatchId)).toEqual([F1])
      const second = yield* account.linkRetryRows({ link: { parentBatchId: P, childBatchId: F2, generation: 1 }, fixes: true, rows: [row(F2, 0, 5)] })
      expect(second._tag).toBe("Linked")
      // The whole retry of the same parent is still possible, once, and sees the rows the fixes hold.
      const whole = yield* account.linkRetryRows({ link: { parentBatchId: P, childBatchId: W, generation: 1 }, fixes: false, rows: [row(W, 0, 7)] })
      expect(whole).toMatchObject({ _tag: "Linked", link: { childBatchId: W, fixes: false } })
      const otherWhole = yield* account.linkRetry({ parentBatchId: P, childBatchId: BatchId.make("wholechild0000w2"), generation: 1 })
      expect(otherWhole.childBatchId).toBe(W)
      const links = yield* account.rowRetries(P)
      expect(links.map((l) => [l.childBatchId, l.parentIdx]).sort()).toEqual([[F1, 3], [F2, 5], [W, 7]].sort())
      expect(yield* account.rowRetries(F2)).toEqual([row(F2, 0, 5)])
    })
  )

  it.scoped("two children asking for one parent row at the same moment: one gets it", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      const children = Array.from({ length: 6 }, (_, i) => BatchId.make(`fixchild00000c${i}`))
      const answers = yield* Effect.all(
        children.map((child) => account.linkRetryRows({ link: { parentBatchId: P, childBatchId: child, generation: 1 }, fixes: true, rows: [row(child, 0, 4)] })),
        { concurrency: "unbounded" }
      )
      expect(answers.filter((a) => a._tag === "Linked")).toHaveLength(1)
      expect(yield* account.rowRetries(P)).toHaveLength(1)
      expect(yield* account.retryLinks()).toHaveLength(1)
    })
  )
})

/** What a store migrated from before row links must do: keep its whole retries, one per parent, and take fixes. */
const expectMigrated = (store: StateStoreShape) =>
  Effect.gen(function* () {
    const account = store.account(ACCOUNT)
    expect((yield* account.retryLinks()).map((l) => [l.parentBatchId, l.childBatchId, l.fixes])).toEqual([[P, W, false]])
    expect((yield* account.linkRetry({ parentBatchId: P, childBatchId: BatchId.make("wholechild0000w2"), generation: 1 })).childBatchId).toBe(W)
    const fix = yield* account.linkRetryRows({ link: { parentBatchId: P, childBatchId: F1, generation: 1 }, fixes: true, rows: [row(F1, 0, 3)] })
    expect(fix._tag).toBe("Linked")
    expect(yield* account.rowRetries(P)).toEqual([row(F1, 0, 3)])
  })

describe("a store written before row links", () => {
  it.scoped("SQLite: the migration keeps the retry links, one whole retry per parent, and takes fix children", () =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const first = yield* openStore(filename)
      yield* first.store.account(ACCOUNT).linkRetry({ parentBatchId: P, childBatchId: W, generation: 1 })
      yield* first.close
      // Back to the schema before the migration: retries with UNIQUE (parent), no row links.
      yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP TABLE rows_retried`
        yield* sql`CREATE TABLE retries_old (account_id TEXT NOT NULL, child_batch_id TEXT NOT NULL, parent_batch_id TEXT NOT NULL,
          generation INTEGER NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (account_id, child_batch_id), UNIQUE (account_id, parent_batch_id))`
        yield* sql`INSERT INTO retries_old SELECT account_id, child_batch_id, parent_batch_id, generation, created_at FROM retries`
        yield* sql`DROP TABLE retries`
        yield* sql`ALTER TABLE retries_old RENAME TO retries`
        // The migrator runs what comes after the latest applied: the later ones are undone too.
        yield* sql`DROP TABLE console_users`
        yield* sql`DROP TABLE console_sessions`
        yield* sql`ALTER TABLE account_halts DROP COLUMN lifted_reason`
        yield* sql`DELETE FROM store_migrations WHERE migration_id >= 9`
      }).pipe(Effect.provide(layerClient({ filename, busyTimeout: "250 millis" })), Effect.orDie)
      const second = yield* openStore(filename)
      yield* Effect.addFinalizer(() => second.close)
      yield* expectMigrated(second.store)
    })
  )

  it.scoped.skipIf(POSTGRES_ADAPTERS.length === 0)("PostgreSQL: the migration keeps the retry links, one whole retry per parent, and takes fix children", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const first = yield* openPostgres(schema)
      yield* first.store.account(ACCOUNT).linkRetry({ parentBatchId: P, childBatchId: W, generation: 1 })
      yield* first.close
      const sql = yield* adminClient
      yield* Effect.gen(function* () {
        yield* sql`DROP TABLE ${sql(schema)}.rows_retried`
        yield* sql`DROP INDEX ${sql(schema)}.retries_whole_by_parent`
        yield* sql`ALTER TABLE ${sql(schema)}.retries DROP COLUMN fixes`
        yield* sql`ALTER TABLE ${sql(schema)}.retries ADD UNIQUE (account_id, parent_batch_id)`
        yield* sql`DELETE FROM ${sql(schema)}.store_migrations WHERE name = 'rows_retried'`
      }).pipe(Effect.orDie)
      const second = yield* openPostgres(schema)
      yield* Effect.addFinalizer(() => second.close)
      yield* expectMigrated(second.store)
    })
  )
})
