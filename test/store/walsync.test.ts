/**
 * A write's caller resumes only once its commit is on disk (WalSync.ts): the WAL's fsync is the
 * boundary we cannot run to failure, so these tests replace it with one they complete by hand.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer } from "effect"
import { renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { StoreError } from "../../src/store/Model.ts"
import { layerClient } from "../../src/store/Sqlite/Open.ts"
import { makeWalSync, type SyncFile } from "../../src/store/Sqlite/WalSync.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { handlesOf } from "../kit/Store.ts"
import { newBatch, rowInputs, tempDbPath } from "./fixtures.ts"
import { scopedTempDir } from "../kit/TempDir.ts"

/** An fsync the test finishes: each call waits in `pending` until `finish` is called. */
const manualSync = () => {
  const pending: Array<{ path: string; done: (error: NodeJS.ErrnoException | null) => void }> = []
  const sync: SyncFile = (path, done) => void pending.push({ path, done })
  const finish = (error: NodeJS.ErrnoException | null = null) => {
    const next = pending.shift()
    if (next === undefined) throw new Error("no fsync is under way")
    next.done(error)
  }
  return { pending, sync, finish }
}

const eio = () => Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })

/** Until `check` holds, yielding to the scheduler (a forked fiber reaches its fsync in a few steps). */
const until = (check: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1_000 && !check(); i++) yield* Effect.sleep("1 millis")
    expect(check()).toBe(true)
  })

describe("the WAL's fsync after a commit", () => {
  it.live("resumes a caller only after the fsync that began after its call", () =>
    Effect.gen(function* () {
      const disk = manualSync()
      const wal = makeWalSync("/x/payouts.db-wal", disk.sync)
      const first = yield* Effect.fork(wal.sync)
      yield* until(() => disk.pending.length === 1)
      expect(disk.pending[0].path).toBe("/x/payouts.db-wal")
      // Two more commits return while the first fsync is under way: it may not cover them.
      const second = yield* Effect.fork(wal.sync)
      const third = yield* Effect.fork(wal.sync)
      yield* Effect.sleep("5 millis")
      expect(first.unsafePoll()).toBeNull()
      disk.finish()
      expect(Exit.isSuccess(yield* Fiber.await(first))).toBe(true)
      expect(second.unsafePoll()).toBeNull()
      // One fsync for both: the burst costs two in all, not three.
      yield* until(() => disk.pending.length === 1)
      disk.finish()
      yield* Fiber.join(second)
      yield* Fiber.join(third)
      expect(disk.pending).toHaveLength(0)
    })
  )

  it.live("fails every waiter, and every later sync, once an fsync has failed", () =>
    Effect.gen(function* () {
      const disk = manualSync()
      const wal = makeWalSync("/x/payouts.db-wal", disk.sync)
      const first = yield* Effect.fork(wal.sync)
      yield* until(() => disk.pending.length === 1)
      const second = yield* Effect.fork(wal.sync)
      yield* Effect.sleep("5 millis")
      disk.finish(eio())
      expect(Exit.isFailure(yield* Fiber.await(first))).toBe(true)
      expect(Exit.isFailure(yield* Fiber.await(second))).toBe(true)
      // A later success would prove nothing about the pages the failed one dropped.
      const later = yield* Effect.exit(wal.sync)
      expect(Exit.isFailure(later)).toBe(true)
      expect(disk.pending).toHaveLength(0)
    })
  )

  it.live("syncs a real file, kept open from its first sync, and reports a missing one", () =>
    Effect.scoped(Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const missing = yield* Effect.exit(makeWalSync(join(dir, "missing-wal")).sync)
      expect(Exit.isFailure(missing)).toBe(true)
      const path = join(dir, "payouts.db-wal")
      writeFileSync(path, "frames")
      const wal = makeWalSync(path)
      yield* wal.sync
      // Renamed away after the first sync: the next one still syncs the file it opened.
      renameSync(path, join(dir, "moved"))
      yield* wal.sync
      yield* wal.close
    }))
  )
})

describe("a store's write transaction and the WAL's fsync", () => {
  const openWith = (filename: string, sync: SyncFile) =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        SqliteStateStore.layerOver({ syncFile: sync }).pipe(
          Layer.provideMerge(layerClient({ filename, busyTimeout: "20 millis" }))
        )
      )
      return { store: handlesOf(context), sql: Context.get(context, SqlClient.SqlClient) }
    })

  /** A store opened on a temp file, its migrations' own write let through its fsync. */
  const opened = (disk: ReturnType<typeof manualSync>) =>
    Effect.gen(function* () {
      const filename = yield* tempDbPath
      const opening = yield* Effect.fork(openWith(filename, disk.sync))
      yield* until(() => disk.pending.length === 1)
      expect(disk.pending[0].path).toBe(`${filename}-wal`)
      disk.finish()
      return yield* Fiber.join(opening)
    })

  it.live("returns from a write only once its fsync is done, with the connection back to FULL", () =>
    Effect.scoped(Effect.gen(function* () {
      const disk = manualSync()
      // The migrations' own write waits for its fsync too (opened checks it).
      const { sql, store } = yield* opened(disk)
      const create = yield* Effect.fork(store.createBatch(newBatch("b1"), rowInputs(3)))
      yield* until(() => disk.pending.length === 1)
      expect(create.unsafePoll()).toBeNull()
      // Committed, so visible, while its caller still waits; and autocommit statements sync in COMMIT.
      const [sync] = yield* sql<{ readonly synchronous: number }>`PRAGMA synchronous`
      expect(sync.synchronous).toBe(2)
      // Loading a batch is more than one transaction: each waits for an fsync of its own.
      let syncs = 0
      while (create.unsafePoll() === null) {
        if (disk.pending.length > 0) {
          disk.finish()
          syncs++
        }
        yield* Effect.sleep("1 millis")
      }
      yield* Fiber.join(create)
      expect(syncs).toBeGreaterThanOrEqual(1)
      expect(disk.pending).toHaveLength(0)
    }))
  )

  it.live("fails a write whose fsync failed as the store being unavailable, and every write after it", () =>
    Effect.scoped(Effect.gen(function* () {
      const disk = manualSync()
      const { store } = yield* opened(disk)
      const create = yield* Effect.fork(store.createBatch(newBatch("b1"), rowInputs(3)))
      yield* until(() => disk.pending.length === 1)
      disk.finish(eio())
      const failed = yield* Effect.flip(Fiber.join(create))
      expect(failed).toBeInstanceOf(StoreError)
      expect(failed.reason).toBe("Unavailable")
      const next = yield* Effect.flip(store.createBatch(newBatch("b2"), rowInputs(1)))
      expect(next.reason).toBe("Unavailable")
    }))
  )
})
