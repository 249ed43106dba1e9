/** Batches' figures summed by SQL (counts by state, the listing's counts, currency totals): one SQL for both dialects. */
import { Effect, Schema } from "effect"
import { emptyCounts, NOT_SENT_STATES, PAID_OUT_STATES } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import type { BatchSummary, CurrencyTotal } from "../Driver/Batches.ts"
import { BATCH_COLUMNS, decodeBatches, decodeCounts, decoder } from "./Columns.ts"
import type { Db } from "./Db.ts"

const decodeTotals = decoder(Schema.Struct({ currency: Schema.String, n: Schema.Number, amount: Schema.Number, completed: Schema.Number, fees: Schema.Number }))
const decodeAmounts = decoder(Schema.Struct({ currency: Schema.String, amount: Schema.Number, n: Schema.Number }))

export const makeBatchCounts = (db: Db) => {
  const { sql } = db

  const countRows = (accountId: string, batchId?: string) =>
    sql`SELECT batch_id, state, COUNT(*) AS n FROM rows
      WHERE account_id = ${accountId} ${batchId === undefined ? sql`` : sql`AND batch_id = ${batchId}`}
      GROUP BY batch_id, state`.pipe(Effect.flatMap(decodeCounts))

  // Summed by SQL: a million-row batch is not read back row by row for a few figures. The distinct
  // amounts (few in a real batch) let a caller estimate a fee with a per-payout minimum exactly.
  const currencyTotals: StoreDriver["currencyTotals"] = (accountId, batchId) => {
    const sent = sql`account_id = ${accountId} AND batch_id = ${batchId} AND amount_minor IS NOT NULL AND currency <> ''
      AND state NOT IN ${sql.in(NOT_SENT_STATES)}`
    return db.read(
      Effect.all([
        sql`SELECT currency, COUNT(*) AS n, SUM(amount_minor) AS amount,
            SUM(CASE WHEN state = 'completed' THEN amount_minor ELSE 0 END) AS completed,
            SUM(CASE WHEN state IN ${sql.in(PAID_OUT_STATES)} THEN COALESCE(fee_minor, 0) ELSE 0 END) AS fees
          FROM rows WHERE ${sent} GROUP BY currency ORDER BY MIN(idx)`.pipe(Effect.flatMap(decodeTotals)),
        sql`SELECT currency, amount_minor AS amount, COUNT(*) AS n FROM rows WHERE ${sent}
          GROUP BY currency, amount_minor`.pipe(Effect.flatMap(decodeAmounts))
      ])
    ).pipe(
      Effect.map(([rows, amounts]) =>
        rows.map((r): CurrencyTotal => ({
          currency: r.currency,
          rows: r.n,
          amountMinor: r.amount,
          completedMinor: r.completed,
          feesMinor: r.fees,
          amounts: amounts.filter((a) => a.currency === r.currency).map((a) => [a.amount, a.n] as const)
        }))
      ),
      Effect.withSpan("Batches.currencyTotals")
    )
  }

  const countByState = Effect.fn("Batches.countByState")(function* (accountId: string, batchId: string) {
    const counts = emptyCounts()
    for (const { n, state } of yield* db.read(countRows(accountId, batchId))) counts[state] = n
    return counts
  })

  const listBatches = Effect.fn("Batches.listBatches")(function* (accountId: string) {
    const [batches, counted] = yield* db.read(
      Effect.all([
        sql`SELECT ${sql.literal(BATCH_COLUMNS)} FROM batches WHERE account_id = ${accountId}
          ORDER BY created_at, batch_id`.pipe(Effect.flatMap(decodeBatches)),
        countRows(accountId)
      ])
    )
    return batches.map((batch): BatchSummary => {
      const counts = emptyCounts()
      let total = 0
      for (const { batchId, n, state } of counted) {
        if (batchId !== batch.batchId) continue
        counts[state] = n
        total += n
      }
      return { ...batch, counts, total }
    })
  })

  return { countByState, currencyTotals, listBatches }
}
