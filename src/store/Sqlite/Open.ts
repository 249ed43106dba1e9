/**
 * Opening the SQLite file: owner-only permissions before SQLite creates it (the -wal and -shm files
 * inherit the database file's mode), WAL with synchronous=FULL so a committed intent survives a power
 * cut (the store's write transactions get the same durability from WalSync.ts, off the event loop),
 * and a busy timeout so two processes can share the file.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Context, Duration, Effect, Layer, Predicate } from "effect"
import { dirname } from "node:path"
import { fieldNames } from "../ColumnNames.ts"
import { StoreError } from "../Model.ts"
import { whatIsWrong } from "./Transaction.ts"

export interface SqliteOptions {
  /** Path of the database file, or ":memory:". */
  readonly filename: string
  /** How long SQLite itself waits on a lock before we wait on the Effect scheduler; default 1s. */
  readonly busyTimeout?: Duration.DurationInput
  /** How long a write waits for another process's lock before failing with StoreError Busy; default 60s. */
  readonly lockTimeout?: Duration.DurationInput
}

/** The code of a SQLite or file-system failure, wherever the driver put it. */
const codeOf = (cause: unknown): string => {
  const seen = [cause, Predicate.hasProperty(cause, "cause") ? cause.cause : undefined]
  for (const c of seen) {
    if (Predicate.hasProperty(c, "code") && typeof c.code === "string") return c.code
    if (Predicate.hasProperty(c, "message") && typeof c.message === "string") {
      if (/not a database/i.test(c.message)) return "SQLITE_NOTADB"
      const errno = /\b(E[A-Z]{3,})\b/.exec(c.message)
      if (errno !== null) return errno[1]
    }
  }
  return ""
}

const unavailable = (filename: string) => (cause: unknown) => {
  const code = codeOf(cause)
  return new StoreError({ reason: "Unavailable", message: `${whatIsWrong(code, filename)}${code === "" ? "" : ` (${code})`}`, cause })
}

const isMemory = (filename: string) => filename === ":memory:" || filename === ""

const prepareFile = (filename: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = dirname(filename)
    if (!(yield* fs.exists(dir))) {
      yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 })
    }
    if (!(yield* fs.exists(filename))) {
      yield* fs.writeFile(filename, new Uint8Array(0), { flag: "a", mode: 0o600 })
      yield* fs.chmod(filename, 0o600)
    }
  }).pipe(Effect.mapError(unavailable(filename)))

export const layerClient = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      if (!isMemory(options.filename)) yield* prepareFile(options.filename)
      const sql = yield* SqliteClient.make({
        filename: options.filename,
        transformResultNames: fieldNames()
      }).pipe(Effect.catchAllDefect((defect) => Effect.fail(unavailable(options.filename)(defect))))
      const busyMillis = Math.round(Duration.toMillis(options.busyTimeout ?? "1 second"))
      yield* Effect.all([
        sql.unsafe(`PRAGMA busy_timeout = ${busyMillis}`),
        sql.unsafe("PRAGMA synchronous = FULL"),
        sql.unsafe("PRAGMA foreign_keys = ON")
      ]).pipe(Effect.mapError(unavailable(options.filename)))
      return Context.make(SqlClient.SqlClient, sql)
    })
  ).pipe(Layer.provide(Layer.merge(Reactivity.layer, NodeFileSystem.layer)))
