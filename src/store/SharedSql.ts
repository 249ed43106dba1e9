/**
 * Statements both adapters run word for word (SQLite and PostgreSQL read them the same way): the
 * summary's sums per currency, and the write of one listing read. Each adapter runs them under its
 * own guard (its locks, retries and error mapping).
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { StoreError } from "./Model.ts"
import { BATCH_COLUMNS, decodeBatches } from "./Sqlite/Queries.ts"
import type { DayRead } from "./MirrorModel.ts"
import { NOT_SENT_STATES, PAID_OUT_STATES } from "./RowState.ts"
import type { CurrencyTotal } from "./StoreDriver.ts"

const decodeTotals = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ currency: Schema.String, n: Schema.Number, amount: Schema.Number, completed: Schema.Number, fees: Schema.Number }))
)
const decodeAmounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ currency: Schema.String, amount: Schema.Number, n: Schema.Number })))

/** Per currency (in order of first row), the batch's rows sent or maybe sent, summed; with each distinct amount. */
export const currencyTotals = (sql: SqlClient.SqlClient, accountId: string, batchId: string) => {
  const sent = sql`account_id = ${accountId} AND batch_id = ${batchId} AND amount_minor IS NOT NULL AND currency <> ''
    AND state NOT IN ${sql.in(NOT_SENT_STATES)}`
  return Effect.all([
    sql`SELECT currency, COUNT(*) AS n, SUM(amount_minor) AS amount,
        SUM(CASE WHEN state = 'completed' THEN amount_minor ELSE 0 END) AS completed,
        SUM(CASE WHEN state IN ${sql.in(PAID_OUT_STATES)} THEN COALESCE(fee_minor, 0) ELSE 0 END) AS fees
      FROM rows WHERE ${sent}
      GROUP BY currency ORDER BY MIN(idx)`.pipe(Effect.flatMap((rows) => Effect.orDie(decodeTotals(rows)))),
    sql`SELECT currency, amount_minor AS amount, COUNT(*) AS n FROM rows WHERE ${sent}
      GROUP BY currency, amount_minor`.pipe(Effect.flatMap((rows) => Effect.orDie(decodeAmounts(rows))))
  ]).pipe(
    Effect.map(([rows, amounts]) =>
      rows.map((r): CurrencyTotal => ({
        currency: r.currency,
        rows: r.n,
        amountMinor: r.amount,
        completedMinor: r.completed,
        feesMinor: r.fees,
        amounts: amounts.filter((a) => a.currency === r.currency).map((a) => [a.amount, a.n] as const)
      }))
    )
  )
}

/** What the store knew of a day before this read. */
const PreviousRead = Schema.Struct({ hash: Schema.String, maxTotal: Schema.Number, reads: Schema.Number, readAt: Schema.Number })
export type PreviousRead = typeof PreviousRead.Type
const decodePrevious = Schema.decodeUnknown(Schema.Array(PreviousRead))

/** The day's last read, as the store kept it (none before its first). */
export const previousRead = (sql: SqlClient.SqlClient, accountId: string, day: string) =>
  sql`SELECT hash, max_total, reads, read_at FROM listing_days WHERE account_id = ${accountId} AND day = ${day}`.pipe(
    Effect.flatMap((rows) => Effect.orDie(decodePrevious(rows))),
    Effect.map((rows): PreviousRead | undefined => rows[0])
  )

/**
 * Writes one complete read of a day: its payouts (`chunk` at a time; each reference once) and the
 * day's record, closed when asked and the same as the read before it.
 */
export const writeDayRead = (sql: SqlClient.SqlClient, accountId: string, read: DayRead, before: PreviousRead | undefined, chunk: number) =>
  Effect.gen(function* () {
    const payouts = [...new Map(read.payouts.map((p) => [p.reference, p])).values()]
    for (let i = 0; i < payouts.length; i += chunk) {
      yield* sql`INSERT INTO listing ${sql.insert(
        payouts.slice(i, i + chunk).map((p) => ({
          account_id: accountId,
          reference: p.reference,
          day: read.day,
          token: p.token,
          description: p.description,
          amount_minor: p.amountMinor,
          currency: p.currency,
          status: p.status,
          fee_minor: p.feeMinor,
          created_at: p.createdAt,
          first_seen_at: read.at,
          // The day's previous read: a payout not in it was not visible then (the lag's evidence).
          first_seen_prev_read: before?.readAt ?? null,
          last_seen_at: read.at
        }))
      )} ON CONFLICT (account_id, reference) DO UPDATE SET
          day = excluded.day, token = excluded.token, description = excluded.description,
          amount_minor = excluded.amount_minor, currency = excluded.currency, status = excluded.status,
          fee_minor = excluded.fee_minor, last_seen_at = excluded.last_seen_at`
    }
    const closed = read.closeIfSame && before !== undefined && before.hash === read.hash ? 1 : 0
    yield* sql`INSERT INTO listing_days ${sql.insert({
      account_id: accountId,
      day: read.day,
      closed,
      hash: read.hash,
      payouts: read.payouts.length,
      max_total: Math.max(read.maxTotal, before?.maxTotal ?? 0),
      reads: (before?.reads ?? 0) + 1,
      read_at: read.at
    })} ON CONFLICT (account_id, day) DO UPDATE SET closed = excluded.closed, hash = excluded.hash,
        payouts = excluded.payouts, max_total = excluded.max_total, reads = excluded.reads, read_at = excluded.read_at`
  })

export const batchNotFound = (batchId: string) => new StoreError({ reason: "NotFound", message: `no batch ${batchId} in this account` })

/** The batch, if the account has it. */
export const selectBatch = (sql: SqlClient.SqlClient, accountId: string, batchId: string) =>
  sql`SELECT ${sql.literal(BATCH_COLUMNS)} FROM batches
    WHERE account_id = ${accountId} AND batch_id = ${batchId}`.pipe(
    Effect.flatMap(decodeBatches),
    Effect.map((rows) => Option.fromNullable(rows[0]))
  )

/** The batch, or NotFound. */
export const existingBatch = (sql: SqlClient.SqlClient, accountId: string, batchId: string) =>
  Effect.flatMap(selectBatch(sql, accountId, batchId), Option.match({
    onNone: () => Effect.fail(batchNotFound(batchId)),
    onSome: Effect.succeed
  }))
