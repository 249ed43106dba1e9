/** Account-wide records for the SQLite adapter: the halt, approvals, and sent figures for the guards. */
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Halt, PhoneCount, SentTotal } from "../AccountModel.ts"
import { StoreError } from "../Model.ts"
import { MAY_HAVE_PAID_STATES } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { chunksOf } from "./Queries.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"

const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => Effect.orDie(decode(rows))
}
const decodeHalts = decoder(Halt)
const decodeTotals = decoder(SentTotal)
const decodePhones = decoder(PhoneCount)

export const makeAccount = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  const activeHalt: StoreDriver["activeHalt"] = (accountId) =>
    catchSql(
      sql`SELECT at, by, reason FROM account_halts WHERE account_id = ${accountId} AND lifted_at IS NULL
        ORDER BY seq LIMIT 1`.pipe(Effect.flatMap(decodeHalts), Effect.map((rows) => Option.fromNullable(rows[0])))
    )

  const haltAccount: StoreDriver["haltAccount"] = (accountId, halt) =>
    write(
      Effect.gen(function* () {
        const open = yield* sql`SELECT seq FROM account_halts WHERE account_id = ${accountId} AND lifted_at IS NULL LIMIT 1`
        if (open.length > 0) return false
        yield* sql`INSERT INTO account_halts (account_id, at, by, reason) VALUES (${accountId}, ${halt.at}, ${halt.by}, ${halt.reason})`
        return true
      })
    ).pipe(Effect.withSpan("StateStore.haltAccount"))

  const liftHalt: StoreDriver["liftHalt"] = (accountId, by, at) =>
    write(
      sql`UPDATE account_halts SET lifted_at = ${at}, lifted_by = ${by}
        WHERE account_id = ${accountId} AND lifted_at IS NULL RETURNING seq`.pipe(Effect.map((rows) => rows.length))
    ).pipe(Effect.withSpan("StateStore.liftHalt"))

  const recordApproval: StoreDriver["recordApproval"] = (accountId, batchId, approval) =>
    write(
      Effect.gen(function* () {
        const updated = yield* sql`UPDATE batches SET approved_by = ${approval.by}, approved_at = ${approval.at},
          approved_what = ${approval.what}, updated_at = ${approval.at}
          WHERE account_id = ${accountId} AND batch_id = ${batchId} RETURNING batch_id`
        if (updated.length === 0) return yield* new StoreError({ reason: "NotFound", message: `no batch ${batchId}` })
      })
    ).pipe(Effect.withSpan("StateStore.recordApproval"))

  const sentTotalsSince: StoreDriver["sentTotalsSince"] = (accountId, since) =>
    catchSql(
      sql`SELECT currency, COUNT(*) AS rows, COALESCE(SUM(amount_minor), 0) AS amount_minor FROM rows
        WHERE account_id = ${accountId} AND intent_at >= ${since} AND state IN ${sql.in(MAY_HAVE_PAID_STATES)}
        GROUP BY currency ORDER BY currency`.pipe(Effect.flatMap(decodeTotals))
    )

  const phonePayoutsSince: StoreDriver["phonePayoutsSince"] = (accountId, phones, since) =>
    phones.length === 0
      ? Effect.succeed([])
      : catchSql(
          Effect.map(
            Effect.forEach(chunksOf([...new Set(phones)], 500), (chunk) =>
              sql`SELECT phone, COUNT(*) AS payouts FROM rows
                WHERE account_id = ${accountId} AND intent_at >= ${since} AND state IN ${sql.in(MAY_HAVE_PAID_STATES)}
                  AND phone IN ${sql.in(chunk)}
                GROUP BY phone`.pipe(Effect.flatMap(decodePhones))
            ),
            (parts) => parts.flat()
          )
        )

  return { activeHalt, haltAccount, liftHalt, recordApproval, sentTotalsSince, phonePayoutsSince } satisfies Partial<StoreDriver>
}
