/**
 * How the PostgreSQL adapter talks to the database. Reads retry a lost connection on a short
 * Schedule. A write is one explicit transaction, retried only when it provably did not commit: the
 * failure came before its COMMIT was sent, or was a serialization failure or deadlock, which roll the
 * transaction back. A connection lost during COMMIT leaves the outcome unknown: that write is not
 * retried here but reported Unavailable, for the caller to settle by reading back (DESIGN 12).
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect, Exit, Predicate, Schedule } from "effect"
import { StoreError } from "../Model.ts"
import type { Db, Guarded } from "../Sql/Db.ts"

/** A transaction's end: committed with its value, or its COMMIT cut off (saved or not, unknown). */
type Ending<A> = { readonly _tag: "Committed"; readonly value: A } | { readonly _tag: "CommitLost"; readonly error: SqlError }

interface Failure {
  /** SQLSTATE from the server, or the socket's errno code; "" when neither is known. */
  readonly code: string
  readonly message: string
}

/** The code and message of a failure, wherever pg or the pool put them (a SqlError wraps the cause). */
const failureOf = (cause: unknown): Failure => {
  let current: unknown = cause
  let message = ""
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (Predicate.hasProperty(current, "message") && typeof current.message === "string" && current.message !== "") {
      message = current.message
    }
    if (Predicate.hasProperty(current, "code") && typeof current.code === "string" && current.code !== "") {
      return { code: current.code, message }
    }
    current = Predicate.hasProperty(current, "cause")
      ? current.cause
      : Predicate.hasProperty(current, "errors") && Array.isArray(current.errors)
      ? current.errors[0]
      : undefined
  }
  return { code: "", message }
}

/** A connection refused, lost or never established: nothing is wrong with the statement itself. */
const LOST_CODE = /^(08|57P0[123]|53300|ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)/
const LOST_MESSAGE = /connection terminated|not queryable|timeout exceeded when trying to connect|connection timed out|failed to acquire connection/i
/** The server rolled the transaction back: running it again is safe. */
const ROLLED_BACK = /^40(001|P01)$/
/** A lock or statement wait ran out (lock_timeout, a cancelled statement). */
const BUSY = /^(55P03|57014)$/
/** Nothing a retry fixes: credentials, a missing database or schema, a read-only standby, a full disk, rights. */
const UNAVAILABLE = /^(28|3D000|3F000|25006|42501|53|58|XX00[12])/

export const isConnectionLost = (cause: unknown): boolean => {
  const { code, message } = failureOf(cause)
  return LOST_CODE.test(code) || (code === "" && LOST_MESSAGE.test(message))
}

const isRolledBack = (cause: unknown): boolean => ROLLED_BACK.test(failureOf(cause).code)

const isSqlError = (u: unknown): u is SqlError => Predicate.isTagged(u, "SqlError")

/** What a person can act on, without the URL (it may carry a password). */
export const describeFailure = (cause: unknown): string => {
  const { code, message } = failureOf(cause)
  const known: ReadonlyArray<readonly [RegExp, string]> = [
    [/^ECONNREFUSED$/, "connection refused (is PostgreSQL running and listening there?)"],
    [/^(ENOTFOUND|EAI_AGAIN)$/, "host not found"],
    [/^(ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/, "host unreachable"],
    [/^28/, "authentication failed"],
    [/^3D000$/, "no such database"],
    [/^3F000$/, "no such schema"],
    [/^57P0[12]$/, "the server is shutting down"],
    [/^57P03$/, "the server is starting up or in recovery"],
    [/^53300$/, "too many connections"],
    [/^25006$/, "the database is read-only (a standby?)"],
    [/^42501$/, "permission denied"],
    [/^53100$/, "disk full"]
  ]
  const found = known.find(([pattern]) => pattern.test(code))
  const what = found?.[1] ?? (isConnectionLost(cause) ? "the connection was lost" : message === "" ? "unknown error" : message)
  return code === "" ? what : `${what} (${code})`
}

/**
 * Reads retry a lost connection on a new one; a write is retried only when it provably did not commit;
 * `writeOrReadBack` settles a cut-off COMMIT by its read-back (claims by their nonce; transitions,
 * which are safe to run twice).
 */
export interface Access extends Omit<Db, "now"> {
  /** The database as messages name it (never with its password). */
  readonly name: string
}

/** Now on the store's clock, as SQL: the database's (one clock for every machine) or the Effect Clock's (tests). */
export const storeClock = (sql: SqlClient.SqlClient, clock: "database" | "effect"): Effect.Effect<Fragment> =>
  clock === "database"
    ? Effect.succeed(sql.literal("(extract(epoch from clock_timestamp()) * 1000)::bigint"))
    // Whole milliseconds, as the database gives them: a TestClock's fractional time is no bigint.
    : Effect.map(Clock.currentTimeMillis, (ms) => sql`${Math.floor(ms)}::bigint`)

/**
 * A lost connection is tried again for about a minute, from 50 ms doubling to 5 s apart: a restarted
 * server or a failover is waited out; a database that stays away is reported (Unavailable, exit 4).
 */
const RETRY = Schedule.exponential("50 millis", 2).pipe(
  Schedule.union(Schedule.spaced("5 seconds")),
  Schedule.jittered,
  Schedule.upTo("60 seconds")
)

export const makeAccess = (sql: SqlClient.SqlClient, name: string): Access => {
  const unavailable = (message: string, cause: unknown) => new StoreError({ reason: "Unavailable", message, cause })

  /** A statement that failed: the caller's to report when it is about the database, else a bug of ours. */
  const toStoreError = (error: SqlError): Effect.Effect<never, StoreError> => {
    const { code } = failureOf(error)
    if (isConnectionLost(error) || UNAVAILABLE.test(code)) {
      return Effect.fail(unavailable(`${name} is unavailable: ${describeFailure(error)}`, error))
    }
    if (isRolledBack(error) || BUSY.test(code)) {
      return Effect.fail(new StoreError({ reason: "Busy", message: `${name} is busy: ${describeFailure(error)}`, cause: error }))
    }
    return Effect.die(error)
  }

  const once = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<Ending<A>, E | SqlError | StoreError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.scoped(
        Effect.gen(function* () {
          const conn = yield* sql.reserve
          yield* conn.executeUnprepared("BEGIN", [], undefined)
          const exit = yield* Effect.exit(restore(Effect.provideService(self, SqlClient.TransactionConnection, [conn, 0])))
          if (Exit.isFailure(exit)) {
            // On a lost connection the server has rolled back already; this ROLLBACK's own error adds nothing.
            yield* Effect.ignore(conn.executeUnprepared("ROLLBACK", [], undefined))
            return yield* Effect.failCause(exit.cause)
          }
          return yield* conn.executeUnprepared("COMMIT", [], undefined).pipe(
            Effect.as<Ending<A>>({ _tag: "Committed", value: exit.value }),
            Effect.catchIf(isConnectionLost, (error) => Effect.succeed<Ending<A>>({ _tag: "CommitLost", error }))
          )
        })
      )
    )

  // Any SqlError out of `once` came before COMMIT was sent, or rolled the transaction back: not saved.
  const notSaved = (e: unknown) => isSqlError(e) && (isConnectionLost(e) || isRolledBack(e))

  const write: Guarded = (self) =>
    once(self).pipe(
      Effect.retry({ schedule: RETRY, while: notSaved }),
      Effect.catchIf(isSqlError, toStoreError),
      Effect.flatMap((ending) =>
        ending._tag === "Committed"
          ? Effect.succeed(ending.value)
          : Effect.fail(
              unavailable(`${name}: the connection was lost while committing a write; whether it was saved is unknown (${describeFailure(ending.error)})`, ending.error)
            )
      )
    )

  const writeOrReadBack: Access["writeOrReadBack"] = (self, readBack) =>
    once(self).pipe(
      Effect.retry({ schedule: RETRY, while: notSaved }),
      Effect.catchIf(isSqlError, toStoreError),
      Effect.flatMap((ending) =>
        ending._tag === "Committed"
          ? Effect.succeed(ending.value)
          : // The server finishes or abandons that COMMIT on its own; a moment later the read is a fact.
            Effect.zipRight(Effect.sleep("500 millis"), read(readBack))
      )
    )

  const read: Guarded = <A, E, R>(self: Effect.Effect<A, E, R>) => {
    // Widened so the refinement below may name SqlError among the errors.
    const statements: Effect.Effect<A, E | SqlError, R> = self
    return statements.pipe(
      Effect.retry({ schedule: RETRY, while: (e) => isSqlError(e) && isConnectionLost(e) }),
      Effect.catchIf(isSqlError, toStoreError)
    )
  }

  return { sql, name, read, write, writeOrReadBack }
}
