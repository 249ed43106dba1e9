/**
 * Write transactions for SQLite shared by several processes: BEGIN IMMEDIATE takes the write lock up
 * front (a deferred BEGIN that upgrades later can fail with SQLITE_BUSY in a way no wait can fix),
 * and a busy lock is waited for on the Effect scheduler, not by blocking the event loop.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Predicate, Schedule, Scope } from "effect"
import { StoreError } from "../Model.ts"

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

const UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM|CORRUPT|NOTADB|NOMEM)/

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

export const makeWriteTransaction = (
  sql: SqlClient.SqlClient,
  lockTimeout: Duration.DurationInput
): WriteTransaction => {
  const immediate = SqlClient.makeWithTransaction({
    transactionTag: SqlClient.TransactionConnection,
    spanAttributes: [["db.system.name", "sqlite"]],
    acquireConnection: Effect.flatMap(Scope.make(), (scope) =>
      Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const)
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
    immediate(self).pipe(
      Effect.retry({ schedule: waitForLock, while: (e) => isSqlError(e) && isBusy(e) }),
      catchSql
    )
}
