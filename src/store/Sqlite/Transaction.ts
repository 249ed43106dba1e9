/**
 * Write transactions for SQLite shared by several processes: BEGIN IMMEDIATE takes the write lock up
 * front (a deferred BEGIN that upgrades later can fail with SQLITE_BUSY in a way no wait can fix),
 * and a busy lock is waited for on the Effect scheduler, not by blocking the event loop.
 */
import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Exit, Option, Predicate, Schedule, Scope } from "effect"
import { StoreError } from "../Model.ts"
import type { WalSync } from "./WalSync.ts"

const sqliteCode = (error: SqlError): string =>
  Predicate.hasProperty(error.cause, "code") && typeof error.cause.code === "string" ? error.cause.code : ""

/** What a person can do something about, from SQLite's result code. */
export const whatIsWrong = (code: string, path?: string): string => {
  const store = path === undefined ? "the state store" : `the state store at ${path}`
  if (/^SQLITE_FULL/.test(code) || /ENOSPC/.test(code)) return `disk full writing ${store}`
  if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) return `${store} is not a valid database`
  if (/^SQLITE_(READONLY|PERM)/.test(code) || /EACCES|EROFS|EPERM/.test(code)) return `${store} is read-only`
  if (/^SQLITE_CANTOPEN/.test(code)) return `cannot open ${store}`
  return `${store} is unavailable`
}

const isBusy = (error: SqlError): boolean => /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(error))

// SQLite's codes, and the errno of the WAL's own fsync (WalSync.ts)
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM|CORRUPT|NOTADB|NOMEM)|^E[A-Z0-9]+$/

const noActiveTransaction = (error: SqlError): boolean =>
  Predicate.hasProperty(error.cause, "message") && String(error.cause.message).includes("no transaction is active")

/** A lock or disk problem is the caller's to report; anything else is a bug in our SQL. */
export const toStoreError = (error: SqlError): Effect.Effect<never, StoreError> => {
  const code = sqliteCode(error)
  if (isBusy(error)) {
    return Effect.fail(
      new StoreError({ reason: "Busy", message: "the state store is locked by another process", cause: error })
    )
  }
  if (UNAVAILABLE.test(code)) {
    return Effect.fail(new StoreError({ reason: "Unavailable", message: `${whatIsWrong(code)} (${code})`, cause: error }))
  }
  return Effect.die(error)
}

const isSqlError = (error: unknown): error is SqlError => Predicate.isTagged(error, "SqlError")

/** The branch is the proof the cast needs: TypeScript does not narrow a generic union by a guard. */
export const catchSql = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError> | StoreError, R> =>
  Effect.catchAll(self, (error): Effect.Effect<never, Exclude<E, SqlError> | StoreError> =>
    isSqlError(error) ? toStoreError(error) : Effect.fail(error as Exclude<E, SqlError>)
  )

export type WriteTransaction = <A, E, R>(
  self: Effect.Effect<A, E, R>
) => Effect.Effect<A, Exclude<E, SqlError> | StoreError, R>

/**
 * With `wal`, the transaction commits with synchronous=NORMAL and its caller resumes after the WAL's
 * fsync off the event loop (WalSync.ts); the connection is back to FULL before anyone else can use it,
 * so a statement outside these transactions still syncs in COMMIT.
 */
export const makeWriteTransaction = (
  sql: SqlClient.SqlClient,
  lockTimeout: Duration.DurationInput,
  wal?: WalSync
): WriteTransaction => {
  // Suspended: SQLite applies this pragma when the statement is prepared, and the driver prepares it
  // as soon as the effect is built, so a finalizer built at acquire time would act at acquire time.
  const pragma = (conn: Connection, level: "NORMAL" | "FULL") =>
    Effect.suspend(() => conn.executeUnprepared(`PRAGMA synchronous = ${level}`, [], undefined))
  const immediate = SqlClient.makeWithTransaction({
    transactionTag: SqlClient.TransactionConnection,
    spanAttributes: [["db.system.name", "sqlite"]],
    acquireConnection: Effect.flatMap(Scope.make(), (scope) =>
      Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const).pipe(
        // The level cannot change inside a transaction: set before BEGIN, restored before the
        // connection is released (finalizers run in reverse, so before the lock's release).
        Effect.tap(([, conn]) =>
          wal === undefined
            ? Effect.void
            : Effect.zipRight(Scope.addFinalizer(scope, Effect.orDie(pragma(conn, "FULL"))), pragma(conn, "NORMAL"))
        ),
        Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
      )
    ),
    begin: (conn) => conn.executeUnprepared("BEGIN IMMEDIATE", [], undefined),
    savepoint: (conn, id) => conn.executeUnprepared(`SAVEPOINT effect_sql_${id}`, [], undefined),
    commit: (conn) => conn.executeUnprepared("COMMIT", [], undefined),
    // a BEGIN that failed on a busy lock left nothing to roll back
    rollback: (conn) =>
      conn.executeUnprepared("ROLLBACK", [], undefined).pipe(Effect.catchIf(noActiveTransaction, () => Effect.void)),
    rollbackSavepoint: (conn, id) => conn.executeUnprepared(`ROLLBACK TO SAVEPOINT effect_sql_${id}`, [], undefined)
  })
  const waitForLock = Schedule.exponential("5 millis", 1.5).pipe(
    Schedule.union(Schedule.spaced("200 millis")),
    Schedule.jittered,
    Schedule.upTo(Duration.decode(lockTimeout))
  )
  return (self) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) => {
      const transaction = immediate(self).pipe(Effect.retry({ schedule: waitForLock, while: (e) => isSqlError(e) && isBusy(e) }))
      // A nested write is a savepoint: the outermost transaction's commit is the one to sync. The sync
      // is not interruptible, as COMMIT is not: a caller learns of its commit only once it is durable.
      return wal === undefined || Option.isSome(outer) ? transaction : Effect.tap(transaction, () => Effect.uninterruptible(wal.sync))
    }).pipe(catchSql)
}
