/** Batches and their lease, for the PostgreSQL adapter. */
import type { Fragment } from "@effect/sql/Statement"
import { Chunk, Clock, Duration, Effect, Option, Predicate, Schema, Stream } from "effect"
import { type Batch, type Fence, type NewBatch, type RowInput, StoreError } from "../Model.ts"
import { emptyCounts } from "../RowState.ts"
import { canonicalId } from "../../domain/Text.ts"
import type { BatchSummary, StoreDriver } from "../StoreDriver.ts"
import { BATCH_COLUMNS, decodeBatches, decodeCounts } from "./Queries.ts"
import type { Access } from "./Transaction.ts"
import * as shared from "../SharedSql.ts"

/** Rows per INSERT: 500 rows of 20 columns stay far under PostgreSQL's 65,535 parameters. */
const INSERT_CHUNK = 500
/** Rows per transaction while loading: one commit per 20,000 rows. */
const LOAD_GROUP = 20_000

const isStream = <A, E, R>(rows: Iterable<A> | Stream.Stream<A, E, R>): rows is Stream.Stream<A, E, R> =>
  Predicate.hasProperty(rows, Stream.StreamTypeId)

const decodeFence = (rows: ReadonlyArray<unknown>) =>
  Effect.orDie(Schema.decodeUnknown(Schema.Array(Schema.Struct({ leaseFence: Schema.Int })))(rows))

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

export const makeBatches = (db: Access, leaseNow: Effect.Effect<Fragment>) => {
  const { sql } = db

  const selectBatch = (accountId: string, batchId: string) => shared.selectBatch(sql, accountId, batchId)
  const existingBatch = (accountId: string, batchId: string) => shared.existingBatch(sql, accountId, batchId)
  const notFound = shared.batchNotFound

  /**
   * Fresh statistics once a batch's rows are in. Without them (a new table, or autovacuum not yet
   * round) the planner takes a batch for one row, and every transition and claim of a 3,000-row run
   * read the whole batch through the primary key (auto_explain: 2,841 rows removed by filter for 159
   * moved): a cost that grows with the batch at every write. Not the owner of the table, PostgreSQL
   * only warns and skips; the plans are then as before, slower but right. It waits at most 2 s for
   * its lock: a vacuum against wraparound, which nothing cancels, must not hold the batch's start.
   */
  const analyzeRows = db.write(Effect.zipRight(sql`SET LOCAL lock_timeout = '2s'`, sql`ANALYZE rows`)).pipe(Effect.ignore)

  const createBatch = <E, R>(
    batch: NewBatch,
    rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>
  ): Effect.Effect<Batch, StoreError | E, R> =>
    Effect.gen(function* () {
      const { accountId, batchId } = batch
      // ON CONFLICT: two machines creating the same batch at once both go on, one row between them.
      const existing = yield* db.write(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const inserted = yield* sql`INSERT INTO batches ${sql.insert({
            account_id: accountId,
            batch_id: batchId,
            file_name: batch.fileName,
            created_at: now,
            updated_at: now,
            state: "loading",
            options_json: JSON.stringify(batch.options ?? {})
          })} ON CONFLICT (account_id, batch_id) DO NOTHING RETURNING batch_id`
          return inserted.length > 0 ? Option.none<Batch>() : yield* selectBatch(accountId, batchId)
        })
      )
      if (Option.isSome(existing) && existing.value.state !== "loading") return existing.value
      // a batch left "loading" by a crash is completed from the same file: rows are deterministic
      const source = isStream(rows) ? rows : Stream.fromIterable(rows)
      yield* source.pipe(
        Stream.grouped(LOAD_GROUP),
        Stream.runForEach((group) =>
          db.write(
            Effect.flatMap(Clock.currentTimeMillis, (now) => {
              const records = Chunk.toReadonlyArray(group).map(toRecord(batchId, accountId, now))
              const chunks = Chunk.toReadonlyArray(Chunk.chunksOf(Chunk.unsafeFromArray(records), INSERT_CHUNK))
              return Effect.forEach(
                chunks,
                (chunk) => sql`INSERT INTO rows ${sql.insert(Chunk.toReadonlyArray(chunk))} ON CONFLICT DO NOTHING`,
                { discard: true }
              )
            })
          )
        )
      )
      yield* analyzeRows
      return yield* db.write(
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

  // Summed by SQL, as SQLite does: the distinct amounts let a caller estimate a fee with a minimum exactly.
  const currencyTotals: StoreDriver["currencyTotals"] = (accountId, batchId) =>
    db.read(shared.currencyTotals(sql, accountId, batchId)).pipe(Effect.withSpan("StateStore.currencyTotals"))

  const countByState = Effect.fn("StateStore.countByState")(function* (accountId: string, batchId: string) {
    const counts = emptyCounts()
    for (const { n, state } of yield* db.read(countRows(accountId, batchId))) counts[state] = n
    return counts
  })

  const listBatches = Effect.fn("StateStore.listBatches")(function* (accountId: string) {
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

  const setBatchState: StoreDriver["setBatchState"] = (accountId, batchId, state, pauseReason = null) =>
    db.write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const updated = yield* sql`UPDATE batches SET state = ${state}, pause_reason = ${pauseReason},
          updated_at = ${now} WHERE account_id = ${accountId} AND batch_id = ${batchId} RETURNING batch_id`
        if (updated.length === 0) return yield* notFound(batchId)
      })
    ).pipe(Effect.withSpan("StateStore.setBatchState"))

  // Lease times come from the lease clock (the database's, DESIGN 12); the other stamps from the Clock.
  const acquireLease: StoreDriver["acquireLease"] = (accountId, batchId, owner, ttl) =>
    db.write(
      Effect.gen(function* () {
        const [now, leaseAt] = [yield* Clock.currentTimeMillis, yield* leaseNow]
        // A new lease (free, expired or another's) gets the next fencing number; its holder keeps its own.
        // Two acquirers at once: the second waits on the row, then finds it taken and updates nothing.
        const taken = yield* sql`UPDATE batches
          SET lease_fence = CASE WHEN lease_owner = ${owner} THEN lease_fence ELSE lease_fence + 1 END,
            lease_owner = ${owner}, lease_expires_at = ${leaseAt} + ${Math.round(Duration.toMillis(ttl))}, updated_at = ${now}
          WHERE account_id = ${accountId} AND batch_id = ${batchId}
            AND (lease_owner IS NULL OR lease_owner = ${owner} OR lease_expires_at <= ${leaseAt})
          RETURNING lease_fence`.pipe(Effect.flatMap(decodeFence))
        if (taken.length > 0) return Option.some<Fence>({ owner, number: taken[0].leaseFence })
        yield* existingBatch(accountId, batchId)
        return Option.none<Fence>()
      })
    ).pipe(Effect.withSpan("StateStore.acquireLease"))

  const renewLease: StoreDriver["renewLease"] = (accountId, batchId, fence, ttl) =>
    db.write(
      Effect.gen(function* () {
        const [now, leaseAt] = [yield* Clock.currentTimeMillis, yield* leaseNow]
        const renewed = yield* sql`UPDATE batches
          SET lease_expires_at = ${leaseAt} + ${Math.round(Duration.toMillis(ttl))}, updated_at = ${now}
          WHERE account_id = ${accountId} AND batch_id = ${batchId}
            AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}
          RETURNING batch_id`
        return renewed.length > 0
      })
    ).pipe(Effect.withSpan("StateStore.renewLease"))

  const releaseLease: StoreDriver["releaseLease"] = (accountId, batchId, owner) =>
    db.write(
      sql`UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND lease_owner = ${owner}`
    ).pipe(Effect.asVoid, Effect.withSpan("StateStore.releaseLease"))

  const deleteBatch: StoreDriver["deleteBatch"] = (accountId, batchId) =>
    db.write(
      Effect.gen(function* () {
        // Every row write share-locks its batch: this lock waits for them and keeps new ones out until
        // the check and the deletes are done, so no claim slips in between.
        yield* sql`SELECT batch_id FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId} FOR UPDATE`
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
    getBatch: (accountId: string, batchId: string) => db.read(selectBatch(accountId, batchId)),
    listBatches,
    setBatchState,
    acquireLease,
    renewLease,
    releaseLease,
    countByState,
    currencyTotals
  } satisfies Partial<StoreDriver>
}
