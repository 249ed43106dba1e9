/** Batches and their lease, for the SQLite adapter. */
import type { SqlClient } from "@effect/sql"
import { Chunk, Clock, Duration, Effect, Option, Predicate, Stream } from "effect"
import { type Batch, type Fence, type NewBatch, type RowInput, StoreError } from "../Model.ts"
import { emptyCounts } from "../RowState.ts"
import { canonicalId } from "../../domain/Text.ts"
import type { BatchSummary, StoreDriver } from "../StoreDriver.ts"
import { BATCH_COLUMNS, chunksOf, decodeBatches, decodeCounts } from "./Queries.ts"
import type { WriteTransaction } from "./Transaction.ts"
import { catchSql } from "./Transaction.ts"
import * as shared from "../SharedSql.ts"

/** Rows per INSERT statement (bound parameters stay under SQLite's limit). */
const INSERT_CHUNK = 1_000
/** Rows per transaction while loading: one commit (one fsync) per 20,000 rows, not per 1,000. */
const LOAD_GROUP = 20_000

const isStream = <A, E, R>(rows: Iterable<A> | Stream.Stream<A, E, R>): rows is Stream.Stream<A, E, R> =>
  Predicate.hasProperty(rows, Stream.StreamTypeId)

const toRecord = (batchId: string, accountId: string, now: number) => (row: RowInput) => ({
  account_id: accountId,
  batch_id: batchId,
  idx: row.idx,
  line: row.line,
  row_id: row.rowId,
  // The id as written is kept; other batches' ids are compared with this form (canonicalId).
  id_key: row.rowId === null ? null : canonicalId(row.rowId),
  token: row.token,
  repeat_key: row.repeatKey,
  operator: row.operator,
  currency: row.currency,
  amount_minor: row.amountMinor,
  phone: row.phone,
  name: row.name,
  email: row.email,
  description: row.description,
  details_json: JSON.stringify(row.details ?? {}),
  state: row.state ?? "validated",
  error: row.error ?? null,
  attempts: 0,
  updated_at: now,
  final_at: row.state === "rejected" ? now : null
})

export const makeBatches = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  const selectBatch = (accountId: string, batchId: string) => shared.selectBatch(sql, accountId, batchId)
  const existingBatch = (accountId: string, batchId: string) => shared.existingBatch(sql, accountId, batchId)
  const notFound = shared.batchNotFound

  const createBatch = <E, R>(
    batch: NewBatch,
    rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>
  ): Effect.Effect<Batch, StoreError | E, R> =>
    Effect.gen(function* () {
      const { accountId, batchId } = batch
      const existing = yield* write(
        Effect.gen(function* () {
          const found = yield* selectBatch(accountId, batchId)
          if (Option.isSome(found)) return found
          const now = yield* Clock.currentTimeMillis
          yield* sql`INSERT INTO batches ${sql.insert({
            account_id: accountId,
            batch_id: batchId,
            file_name: batch.fileName,
            created_at: now,
            updated_at: now,
            state: "loading",
            options_json: JSON.stringify(batch.options ?? {})
          })}`
          return Option.none<Batch>()
        })
      )
      if (Option.isSome(existing) && existing.value.state !== "loading") return existing.value
      // a batch left "loading" by a crash is completed from the same file: rows are deterministic
      const source = isStream(rows) ? rows : Stream.fromIterable(rows)
      yield* source.pipe(
        Stream.grouped(LOAD_GROUP),
        Stream.runForEach((group) =>
          write(
            Effect.flatMap(Clock.currentTimeMillis, (now) => {
              const records = Chunk.toReadonlyArray(group).map(toRecord(batchId, accountId, now))
              return Effect.forEach(chunksOf(records, INSERT_CHUNK), (chunk) => sql`INSERT OR IGNORE INTO rows ${sql.insert(chunk)}`, { discard: true })
            })
          )
        )
      )
      return yield* write(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          yield* sql`UPDATE batches SET state = 'open', updated_at = ${now}
            WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = 'loading'`
          return yield* existingBatch(accountId, batchId)
        })
      )
    }).pipe(Effect.withSpan("StateStore.createBatch"))

  const countRows = (accountId: string, batchId?: string) =>
    sql`SELECT batch_id, state, COUNT(*) AS n FROM rows
      WHERE account_id = ${accountId} ${batchId === undefined ? sql`` : sql`AND batch_id = ${batchId}`}
      GROUP BY batch_id, state`.pipe(Effect.flatMap(decodeCounts))

  // Summed by SQL: a million-row batch is not read back row by row for a few figures. The distinct
  // amounts (few in a real batch) let a caller estimate a fee with a per-payout minimum exactly.
  const currencyTotals: StoreDriver["currencyTotals"] = (accountId, batchId) =>
    catchSql(shared.currencyTotals(sql, accountId, batchId)).pipe(Effect.withSpan("StateStore.currencyTotals"))

  const countByState = Effect.fn("StateStore.countByState")(function* (accountId: string, batchId: string) {
    const counts = emptyCounts()
    for (const { n, state } of yield* catchSql(countRows(accountId, batchId))) counts[state] = n
    return counts
  })

  const listBatches = Effect.fn("StateStore.listBatches")(function* (accountId: string) {
    const [batches, counted] = yield* catchSql(
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

  const setBatchState: StoreDriver["setBatchState"] = (accountId, batchId, state, pauseReason = null) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const updated = yield* sql`UPDATE batches SET state = ${state}, pause_reason = ${pauseReason},
          updated_at = ${now} WHERE account_id = ${accountId} AND batch_id = ${batchId} RETURNING batch_id`
        if (updated.length === 0) return yield* notFound(batchId)
      })
    ).pipe(Effect.withSpan("StateStore.setBatchState"))

  const acquireLease: StoreDriver["acquireLease"] = (accountId, batchId, owner, ttl) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // A new lease (free, expired or another's) gets the next fencing number; its holder keeps its own.
        const taken = yield* sql`UPDATE batches
          SET lease_fence = CASE WHEN lease_owner = ${owner} THEN lease_fence ELSE lease_fence + 1 END,
            lease_owner = ${owner}, lease_expires_at = ${now + Duration.toMillis(ttl)}, updated_at = ${now}
          WHERE account_id = ${accountId} AND batch_id = ${batchId}
            AND (lease_owner IS NULL OR lease_owner = ${owner} OR lease_expires_at <= ${now})
          RETURNING lease_fence`
        const fence = taken[0]?.["leaseFence"]
        if (typeof fence === "number") return Option.some<Fence>({ owner, number: fence })
        yield* existingBatch(accountId, batchId)
        return Option.none<Fence>()
      })
    ).pipe(Effect.withSpan("StateStore.acquireLease"))

  const renewLease: StoreDriver["renewLease"] = (accountId, batchId, fence, ttl) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const renewed = yield* sql`UPDATE batches
          SET lease_expires_at = ${now + Duration.toMillis(ttl)}, updated_at = ${now}
          WHERE account_id = ${accountId} AND batch_id = ${batchId}
            AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}
          RETURNING batch_id`
        return renewed.length > 0
      })
    ).pipe(Effect.withSpan("StateStore.renewLease"))

  const releaseLease: StoreDriver["releaseLease"] = (accountId, batchId, owner) =>
    write(
      sql`UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND lease_owner = ${owner}`
    ).pipe(Effect.asVoid, Effect.withSpan("StateStore.releaseLease"))

  const deleteBatch: StoreDriver["deleteBatch"] = (accountId, batchId) =>
    write(
      Effect.gen(function* () {
        const sent = yield* sql`SELECT idx FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId}
          AND (intent_at IS NOT NULL OR state NOT IN ('validated', 'rejected', 'skipped')) LIMIT 1`
        if (sent.length > 0) {
          return yield* new StoreError({
            reason: "Conflict",
            message: `batch ${batchId} has rows that may have been paid; it cannot be deleted`
          })
        }
        yield* sql`DELETE FROM row_events WHERE account_id = ${accountId} AND batch_id = ${batchId}`
        yield* sql`DELETE FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId}`
        yield* sql`DELETE FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}`
      })
    ).pipe(Effect.withSpan("StateStore.deleteBatch"))

  return {
    createBatch,
    deleteBatch,
    getBatch: (accountId: string, batchId: string) => catchSql(selectBatch(accountId, batchId)),
    listBatches,
    setBatchState,
    acquireLease,
    renewLease,
    releaseLease,
    countByState,
    currencyTotals
  } satisfies Partial<StoreDriver>
}
