/**
 * Opening the PostgreSQL store: one pool whose every connection works in the store's schema and with
 * the same session settings (given at connection start, so pooled and reserved connections agree),
 * int8 and numeric read as numbers so the SQLite adapter's row schemas decode PostgreSQL rows too.
 * The URL may carry a password: it stays Redacted, and messages name the database without it.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { fieldNames } from "../ColumnNames.ts"
import { StoreError } from "../Model.ts"
import { describeFailure, isConnectionLost } from "./Transaction.ts"

const OPEN_RETRY = Schedule.exponential("200 millis", 2).pipe(Schedule.jittered, Schedule.upTo("10 seconds"))

export interface PostgresOptions {
  /** postgres://user[:password]@host[:port]/database[?sslmode=...]; give it Redacted when it has a password. */
  readonly url: Redacted.Redacted<string> | string
  /** The schema holding every table of the store; default public. Lower-case letters, digits and _. */
  readonly schema?: string
  /**
   * The store's clock, which decides lease expiry and fencing and stamps registers. "database" (the default):
   * clock_timestamp(), one clock for every machine sharing the store (DESIGN 12). "effect": the Effect
   * Clock, as the SQLite adapter does, so the contract suite can drive leases with the TestClock.
   */
  readonly clock?: "database" | "effect"
  /** Connections in the pool; default 10. */
  readonly maxConnections?: number
  /** How long a statement waits for a row lock held by another process before Busy; default 60 s. */
  readonly lockTimeout?: Duration.DurationInput
  /** How long to wait for a connection; default 10 s. */
  readonly connectTimeout?: Duration.DurationInput
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

export const schemaOf = (options: PostgresOptions): Effect.Effect<string, StoreError> => {
  const schema = options.schema ?? "public"
  return SCHEMA_NAME.test(schema)
    ? Effect.succeed(schema)
    : Effect.fail(new StoreError({ reason: "Unavailable", message: `schema name "${schema}" is not lower-case letters, digits and _` }))
}

const secretOf = (url: Redacted.Redacted<string> | string): Redacted.Redacted<string> =>
  Redacted.isRedacted(url) ? url : Redacted.make(url)

const parse = (url: Redacted.Redacted<string>): URL | undefined => {
  const text = Redacted.value(url)
  return URL.canParse(text) ? new URL(text) : undefined
}

/** The database as a person knows it, never with its password: postgres://user@host:port/db, schema s. */
export const nameOf = (options: PostgresOptions, schema: string): string => {
  const url = parse(secretOf(options.url))
  if (url === undefined) return `the PostgreSQL state store (schema ${schema})`
  const user = url.username === "" ? "" : `${url.username}@`
  return `the state store at ${url.protocol}//${user}${url.host}${url.pathname}, schema ${schema}`
}

/**
 * The URL with the session settings every connection starts with: the schema first on search_path; a
 * lock wait bounded (Busy rather than hanging behind a stalled peer); and a transaction left idle by a
 * frozen process ended by the server, so its locks do not keep another worker from a taken-over batch.
 */
const sessionUrl = (options: PostgresOptions, schema: string): Effect.Effect<Redacted.Redacted<string>, StoreError> => {
  const url = parse(secretOf(options.url))
  if (url === undefined || !/^postgres(ql)?:$/.test(url.protocol)) {
    return Effect.fail(new StoreError({ reason: "Unavailable", message: "the state store's URL is not a postgres:// URL" }))
  }
  const lockMillis = Math.round(Duration.toMillis(options.lockTimeout ?? "60 seconds"))
  const settings = [
    url.searchParams.get("options") ?? "",
    `-c search_path=${schema}`,
    `-c lock_timeout=${lockMillis}`,
    `-c idle_in_transaction_session_timeout=${Math.max(lockMillis, 60_000)}`
  ]
  url.searchParams.set("options", settings.join(" ").trim())
  return Effect.succeed(Redacted.make(url.toString()))
}

// OIDs of the types whose text pg would otherwise hand back as strings.
const BOOL = 16
const INT8 = 20
const INT2 = 21
const INT4 = 23
const FLOAT4 = 700
const FLOAT8 = 701
const NUMERIC = 1700

/** A whole number beyond 2^53 stays text, so a row schema refuses it rather than rounding it. */
const exactNumber = (text: string): number | string => {
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : text
}

interface TypeParsers {
  readonly getTypeParser: (oid: number, format?: string) => (text: string) => unknown
}

export const TYPE_PARSERS: TypeParsers = {
  getTypeParser: (oid) => {
    switch (oid) {
      case BOOL:
        return (text) => text === "t"
      case INT2:
      case INT4:
      case INT8:
      case NUMERIC:
        return exactNumber
      case FLOAT4:
      case FLOAT8:
        return Number
      default:
        return (text) => text
    }
  }
}

export const layerClient = (
  options: PostgresOptions
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StoreError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const schema = yield* schemaOf(options)
      const name = nameOf(options, schema)
      const unavailable = (cause: unknown) =>
        new StoreError({ reason: "Unavailable", message: `cannot open ${name}: ${describeFailure(cause)}`, cause })
      const client = yield* PgClient.make({
        url: yield* sessionUrl(options, schema),
        maxConnections: options.maxConnections ?? 10,
        connectTimeout: options.connectTimeout ?? "10 seconds",
        applicationName: "payouts",
        transformResultNames: fieldNames(),
        types: TYPE_PARSERS
      }).pipe(
        // A server restarting (or a connection cut as the pool opens) is waited out a little.
        Effect.retry({ schedule: OPEN_RETRY, while: isConnectionLost }),
        Effect.mapError(unavailable),
        Effect.catchAllDefect((defect) => Effect.fail(unavailable(defect)))
      )
      return Context.make(PgClient.PgClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    })
  ).pipe(Layer.provide(Reactivity.layer))
