/**
 * A write transaction's durability without blocking the event loop. With synchronous=FULL, SQLite
 * fsyncs the WAL inside COMMIT, on the calling thread: about 4 ms here during which the process
 * answers no socket, times no request and writes no intent. Our write transactions commit with
 * synchronous=NORMAL instead (the frames are written to the WAL, not yet synced) and their caller
 * then waits for an fsync of the WAL file run on libuv's thread pool. The caller resumes only once
 * its commit is on disk, as with FULL: an intent is still durable before its POST.
 *
 * The WAL is written in order, so one fsync covers every commit that returned before it began:
 * callers that commit while an fsync is under way wait for the next one, and a burst of commits
 * costs two fsyncs, not one each. SQLite keeps syncing what NORMAL still syncs itself (the WAL
 * before a checkpoint, the database after one, the WAL header when it is reused), so a power cut
 * can lose only commits whose callers are still waiting, as with FULL.
 *
 * After a failed fsync the kernel may have dropped the dirty pages it could not write, and a later
 * fsync that succeeds proves nothing about them: every later sync fails too, and the store is
 * unavailable until the process starts again.
 */
import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { closeSync, fsync, open } from "node:fs"

/** fsync of a file by path, on the thread pool (the boundary a test replaces to count or fail syncs). */
export type SyncFile = (path: string, done: (error: NodeJS.ErrnoException | null) => void) => void

/**
 * Opens the file at its first sync and keeps it: one trip to the thread pool per sync (each trip
 * costs the event loop 25-45 us here). The WAL's inode stays the same while our connection holds
 * the database open: SQLite deletes a WAL only when its last connection closes, and `close` runs
 * before ours does (the store's scope closes before the client's).
 */
const keptOpen = (): { readonly sync: SyncFile; readonly close: () => void } => {
  let fd: number | undefined
  let busy = false
  let closing = false
  const release = () => {
    if (fd !== undefined) closeSync(fd)
    fd = undefined
  }
  const finish = (done: (error: NodeJS.ErrnoException | null) => void) => (error: NodeJS.ErrnoException | null) => {
    busy = false
    // Closed while the pool still had it: its number is not given back before the fsync is done.
    if (closing) release()
    done(error)
  }
  return {
    sync: (path, done) => {
      if (closing) return done(Object.assign(new Error(`${path} is closed`), { code: "EBADF" }))
      busy = true
      if (fd !== undefined) return fsync(fd, finish(done))
      open(path, "r", (error, opened) => {
        if (error !== null) return finish(done)(error)
        fd = opened
        fsync(opened, finish(done))
      })
    },
    close: () => {
      closing = true
      if (!busy) release()
    }
  }
}

export interface WalSync {
  /** Returns once every commit that returned before it was called is on disk. */
  readonly sync: Effect.Effect<void, SqlError>
  /** Closes the file kept open (once an fsync under way is done); later syncs fail. */
  readonly close: Effect.Effect<void>
}

interface Waiter {
  readonly ticket: number
  readonly resume: (result: Effect.Effect<void, SqlError>) => void
}

export const makeWalSync = (walPath: string, syncWith?: SyncFile): WalSync => {
  const file = syncWith === undefined ? keptOpen() : { sync: syncWith, close: () => {} }
  const sync = file.sync
  let tickets = 0
  let flushing = false
  let failure: SqlError | undefined
  let waiters: Array<Waiter> = []

  const settle = (covered: number, result: Effect.Effect<void, SqlError>) => {
    const still: Array<Waiter> = []
    for (const waiter of waiters) {
      if (waiter.ticket <= covered) waiter.resume(result)
      else still.push(waiter)
    }
    waiters = still
  }

  const flush = (): void => {
    flushing = true
    // Every ticket up to here was taken after its COMMIT returned, so before this fsync begins.
    const covered = tickets
    sync(walPath, (error) => {
      flushing = false
      if (error !== null && failure === undefined) {
        failure = new SqlError({ cause: error, message: `Failed to sync the write-ahead log ${walPath}` })
      }
      settle(covered, failure === undefined ? Effect.void : Effect.fail(failure))
      if (failure !== undefined) settle(Number.POSITIVE_INFINITY, Effect.fail(failure))
      else if (waiters.length > 0) flush()
    })
  }

  return {
    sync: Effect.suspend(() => {
      if (failure !== undefined) return Effect.fail(failure)
      return Effect.async<void, SqlError>((resume) => {
        const waiter: Waiter = { ticket: ++tickets, resume }
        waiters.push(waiter)
        if (!flushing) flush()
        // An interrupted caller stops waiting; the fsync goes on for the others.
        return Effect.sync(() => {
          waiters = waiters.filter((w) => w !== waiter)
        })
      })
    }),
    close: Effect.sync(file.close)
  }
}
