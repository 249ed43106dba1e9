/**
 * An account's registers on PostgreSQL: small values that processes on several machines change
 * atomically (the request budget, currency locks, worker heartbeats). A change holds an advisory lock
 * on its register for its transaction, so two machines changing one register, even one not yet
 * written, take turns; its time is the store's clock (the database's), the same for every machine.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import type { StoreDriver } from "../StoreDriver.ts"
import type { Access } from "./Transaction.ts"

const Current = Schema.Array(Schema.Struct({ nowMs: Schema.Number, value: Schema.NullOr(Schema.String) }))
const Now = Schema.Array(Schema.Struct({ nowMs: Schema.Number }))
const Rows = Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String, updatedAt: Schema.Number }))

const decode = <A, I>(schema: Schema.Schema<A, I>) => (rows: ReadonlyArray<unknown>) =>
  Effect.orDie(Schema.decodeUnknown(schema)(rows))

/** LIKE with the prefix's own %, _ and \ taken literally. */
const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const makeRegisters = (db: Access, storeNow: Effect.Effect<Fragment>) => {
  const { sql } = db

  const modifyRegister: StoreDriver["modifyRegister"] = (accountId, name, change) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`registers/${accountId}/${name}`}, 0))`
        // After the lock, in a statement of its own: its snapshot includes the last holder's commit.
        const [current] = yield* sql`SELECT ${yield* storeNow} AS now_ms,
          (SELECT value FROM registers WHERE account_id = ${accountId} AND name = ${name}) AS value`.pipe(
          Effect.flatMap(decode(Current))
        )
        const before = Option.fromNullable(current.value)
        const [answer, next] = change(before, current.nowMs)
        if (Option.isSome(next)) {
          yield* sql`INSERT INTO registers ${sql.insert({ account_id: accountId, name, value: next.value, updated_at: current.nowMs })}
            ON CONFLICT (account_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
        } else if (Option.isSome(before)) {
          yield* sql`DELETE FROM registers WHERE account_id = ${accountId} AND name = ${name}`
        }
        return answer
      })
    ).pipe(Effect.withSpan("StateStore.modifyRegister"))

  const registers: StoreDriver["registers"] = (accountId, prefix) =>
    db.read(
      Effect.gen(function* () {
        const [now, rows] = yield* Effect.all([
          sql`SELECT ${yield* storeNow} AS now_ms`.pipe(Effect.flatMap(decode(Now))),
          sql`SELECT name, value, updated_at FROM registers
            WHERE account_id = ${accountId} AND name LIKE ${likePrefix(prefix)} ESCAPE '\\' ORDER BY name`.pipe(
            Effect.flatMap(decode(Rows))
          )
        ])
        return { nowMs: now[0].nowMs, registers: rows }
      })
    )

  return { modifyRegister, registers } satisfies Partial<StoreDriver>
}
