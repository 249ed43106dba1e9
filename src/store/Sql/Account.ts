/** Account-wide records: the halt, approvals, and sent figures for the guards. One SQL for both dialects. */
import { Effect, Option } from "effect"
import { Halt, PhoneCount, SentTotal } from "../AccountModel.ts"
import { StoreError } from "../Model.ts"
import { MAY_HAVE_PAID_STATES } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decoder } from "./Columns.ts"
import { type Db, eachPart, oneOf, StoreDb } from "./Db.ts"

const decodeHalts = decoder(Halt)
const decodeTotals = decoder(SentTotal)
const decodePhones = decoder(PhoneCount)

export const makeAccount = (db: Db) => {
  const { sql } = db

  const activeHalt: StoreDriver["activeHalt"] = (accountId) =>
    db.read(
      sql`SELECT at, by, reason FROM account_halts WHERE account_id = ${accountId} AND lifted_at IS NULL
        ORDER BY seq LIMIT 1`.pipe(Effect.flatMap(decodeHalts), Effect.map((rows) => Option.fromNullable(rows[0])))
    )

  // At most one halt in force per account: the second halt learns one was already in force (on
  // PostgreSQL across machines, by the partial unique index).
  const haltAccount: StoreDriver["haltAccount"] = (accountId, halt) =>
    db.write(
      sql`INSERT INTO account_halts (account_id, at, by, reason) SELECT ${accountId}, CAST(${halt.at} AS BIGINT), ${halt.by}, ${halt.reason}
        WHERE NOT EXISTS (SELECT 1 FROM account_halts WHERE account_id = ${accountId} AND lifted_at IS NULL)
        ${sql.onDialectOrElse({ pg: () => sql`ON CONFLICT (account_id) WHERE lifted_at IS NULL DO NOTHING`, orElse: () => sql`` })}
        RETURNING seq`.pipe(Effect.map((rows) => rows.length > 0))
    ).pipe(Effect.withSpan("AccountRecords.haltAccount"))

  const liftHalt: StoreDriver["liftHalt"] = (accountId, by, at, reason) =>
    db.write(
      sql`UPDATE account_halts SET lifted_at = ${at}, lifted_by = ${by}, lifted_reason = ${reason ?? null}
        WHERE account_id = ${accountId} AND lifted_at IS NULL RETURNING seq`.pipe(Effect.map((rows) => rows.length))
    ).pipe(Effect.withSpan("AccountRecords.liftHalt"))

  const recordApproval: StoreDriver["recordApproval"] = (accountId, batchId, approval) =>
    db.write(
      Effect.gen(function* () {
        const updated = yield* sql`UPDATE batches SET approved_by = ${approval.by}, approved_at = ${approval.at},
          approved_what = ${approval.what}, updated_at = ${approval.at}
          WHERE account_id = ${accountId} AND batch_id = ${batchId} RETURNING batch_id`
        if (updated.length === 0) return yield* new StoreError({ reason: "NotFound", message: `no batch ${batchId}` })
      })
    ).pipe(Effect.withSpan("AccountRecords.recordApproval"))

  const sentTotalsSince: StoreDriver["sentTotalsSince"] = (accountId, since) =>
    db.read(
      sql`SELECT currency, COUNT(*) AS rows, COALESCE(SUM(amount_minor), 0) AS amount_minor FROM rows
        WHERE account_id = ${accountId} AND intent_at >= ${since} AND state IN ${sql.in(MAY_HAVE_PAID_STATES)}
        GROUP BY currency ORDER BY currency`.pipe(Effect.flatMap(decodeTotals))
    )

  const phonePayoutsSince: StoreDriver["phonePayoutsSince"] = (accountId, phones, since) =>
    phones.length === 0
      ? Effect.succeed([])
      : db.read(eachPart(oneOf(sql, sql`phone`, [...new Set(phones)]), (where) =>
        sql`SELECT phone, COUNT(*) AS payouts FROM rows
          WHERE account_id = ${accountId} AND intent_at >= ${since} AND state IN ${sql.in(MAY_HAVE_PAID_STATES)} AND ${where}
          GROUP BY phone`.pipe(Effect.flatMap(decodePhones))))

  return { activeHalt, haltAccount, liftHalt, recordApproval, sentTotalsSince, phonePayoutsSince } satisfies Partial<StoreDriver>
}

/** The account's halts, approvals and sent figures. */
export class AccountRecords extends Effect.Service<AccountRecords>()("store/AccountRecords", { effect: Effect.map(StoreDb, makeAccount) }) {}
