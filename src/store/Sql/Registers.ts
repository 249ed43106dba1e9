/**
 * An account's registers: small values processes change atomically (the request budget, currency
 * locks, worker heartbeats). A change is one write transaction; on PostgreSQL it also holds an
 * advisory lock on its register, so machines changing one register (even one not yet written) take
 * turns. Their time is the store's clock.
 */
import { Effect, Option, Schema } from "effect"
import type { StoreDriver } from "../StoreDriver.ts"
import { decoder } from "./Columns.ts"
import { type Db, StoreDb } from "./Db.ts"

const decodeCurrent = decoder(Schema.Struct({ nowMs: Schema.Number, value: Schema.NullOr(Schema.String) }))
const decodeNow = decoder(Schema.Struct({ nowMs: Schema.Number }))
const decodeRegisters = decoder(Schema.Struct({ name: Schema.String, value: Schema.String, updatedAt: Schema.Number }))

/** LIKE with the prefix's own %, _ and \ taken literally. */
const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const makeRegisters = (db: Db) => {
  const { sql } = db

  const modifyRegister: StoreDriver["modifyRegister"] = (accountId, name, change) =>
    db.write(
      Effect.gen(function* () {
        yield* sql.onDialectOrElse({
          pg: () => sql`SELECT pg_advisory_xact_lock(hashtextextended(${`registers/${accountId}/${name}`}, 0))`,
          orElse: () => Effect.void
        })
        // After the lock, in a statement of its own: its snapshot includes the last holder's commit.
        const [current] = yield* sql`SELECT ${yield* db.now} AS now_ms,
          (SELECT value FROM registers WHERE account_id = ${accountId} AND name = ${name}) AS value`.pipe(Effect.flatMap(decodeCurrent))
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
    ).pipe(Effect.withSpan("Registers.modifyRegister"))

  const registers: StoreDriver["registers"] = (accountId, prefix) =>
    db.read(
      Effect.gen(function* () {
        const [now, rows] = yield* Effect.all([
          sql`SELECT ${yield* db.now} AS now_ms`.pipe(Effect.flatMap(decodeNow)),
          sql`SELECT name, value, updated_at FROM registers
            WHERE account_id = ${accountId} AND name LIKE ${likePrefix(prefix)} ESCAPE '\\' ORDER BY name`.pipe(Effect.flatMap(decodeRegisters))
        ])
        return { nowMs: now[0].nowMs, registers: rows }
      })
    )

  return { modifyRegister, registers } satisfies Partial<StoreDriver>
}

/** The account's registers. */
export class Registers extends Effect.Service<Registers>()("store/Registers", { effect: Effect.map(StoreDb, makeRegisters) }) {}
