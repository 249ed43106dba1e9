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
import { close, fsync, open } from "node:fs"

/** fsync of a file by path, on the thread pool (the boundary a test replaces to count or fail syncs). */
export type SyncFile = (path: string, done: (error: NodeJS.ErrnoException | null) => void) => void

export const syncFile: SyncFile = (path, done) =>
  open(path, "r", (opened, fd) => {
    if (opened !== null) return done(opened)
    fsync(fd, (synced) => close(fd, (closed) => done(synced ?? closed)))
  })

export interface WalSync {
  /** Returns once every commit that returned before it was called is on disk. */
  readonly sync: Effect.Effect<void, SqlError>
}

interface Waiter {
  readonly ticket: number
  readonly resume: (result: Effect.Effect<void, SqlError>) => void
}

export const makeWalSync = (walPath: string, sync: SyncFile = syncFile): WalSync => {
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
    })
  }
}
