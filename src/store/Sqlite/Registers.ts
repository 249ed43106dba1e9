/**
 * An account's registers on SQLite: one write transaction (BEGIN IMMEDIATE) reads, changes and writes
 * a value, so processes sharing the file see each change whole. The clock is the Effect Clock: every
 * process sharing a SQLite file runs on the same machine.
 */
import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import type { StoreDriver } from "../StoreDriver.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"

const RegisterRow = Schema.Struct({ name: Schema.String, value: Schema.String, updatedAt: Schema.Number })
const decodeRows = Schema.decodeUnknown(Schema.Array(RegisterRow))

/** LIKE with the prefix's own % and _ taken literally. */
export const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const makeRegisters = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  const modifyRegister: StoreDriver["modifyRegister"] = (accountId, name, change) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const found = yield* sql`SELECT value FROM registers WHERE account_id = ${accountId} AND name = ${name}`
        const current = Option.fromNullable(found[0]).pipe(Option.map((row) => String(row.value)))
        const [answer, next] = change(current, now)
        if (Option.isSome(next)) {
          yield* sql`INSERT INTO registers (account_id, name, value, updated_at) VALUES (${accountId}, ${name}, ${next.value}, ${now})
            ON CONFLICT (account_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
        } else if (Option.isSome(current)) {
          yield* sql`DELETE FROM registers WHERE account_id = ${accountId} AND name = ${name}`
        }
        return answer
      })
    )

  const registers: StoreDriver["registers"] = (accountId, prefix) =>
    catchSql(
      Effect.gen(function* () {
        const nowMs = yield* Clock.currentTimeMillis
        const rows = yield* sql`SELECT name, value, updated_at FROM registers
          WHERE account_id = ${accountId} AND name LIKE ${likePrefix(prefix)} ESCAPE '\\' ORDER BY name`
        return { nowMs, registers: yield* Effect.orDie(decodeRows(rows)) }
      })
    )

  return { modifyRegister, registers } satisfies Partial<StoreDriver>
}
