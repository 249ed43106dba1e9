/** Batches and their lease, one SQL for both dialects. */
import { Chunk, Clock, Duration, Effect, Option, Predicate, Schema, Stream } from "effect"
import { canonicalId } from "../../domain/Text.ts"
import { type Batch, type Fence, type NewBatch, type RowInput, StoreError } from "../Model.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { makeBatchCounts } from "./BatchCounts.ts"
import { BATCH_COLUMNS, decodeBatches, decoder } from "./Columns.ts"
import { chunksOf, type Db, StoreDb } from "./Db.ts"

/** Rows per INSERT: 22 parameters each, under SQLite's 32,766 and PostgreSQL's 65,535. */
const INSERT_CHUNK = 1_000
/** Rows per transaction while loading: one commit (one fsync) per 20,000 rows. */
const LOAD_GROUP = 20_000

const decodeFence = decoder(Schema.Struct({ leaseFence: Schema.Int }))

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

export const batchNotFound = (batchId: string) => new StoreError({ reason: "NotFound", message: `no batch ${batchId} in this account` })

export const makeBatches = (db: Db) => {
  const { sql } = db

  const { countByState, currencyTotals, listBatches } = makeBatchCounts(db)

  const selectBatch = (accountId: string, batchId: string) =>
    sql`SELECT ${sql.literal(BATCH_COLUMNS)} FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}`.pipe(
      Effect.flatMap(decodeBatches),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  const existingBatch = (accountId: string, batchId: string) =>
    Effect.flatMap(selectBatch(accountId, batchId), Option.match({ onNone: () => Effect.fail(batchNotFound(batchId)), onSome: Effect.succeed }))

  /**
   * PostgreSQL: fresh statistics once a batch's rows are in, or the planner takes the batch for one row
   * and reads all of it at every write. Not the table's owner, it only warns; its lock is waited 2 s at most.
   */
  const afterLoad = sql.onDialectOrElse({
    pg: () => db.write(Effect.zipRight(sql`SET LOCAL lock_timeout = '2s'`, sql`ANALYZE rows`)).pipe(Effect.ignore),
    orElse: () => Effect.void
  })

  const createBatch = <E, R>(
    batch: NewBatch,
    rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>
  ): Effect.Effect<Batch, StoreError | E, R> =>
    Effect.gen(function* () {
      const { accountId, batchId } = batch
      // ON CONFLICT: two processes creating the same batch at once both go on, one row between them.
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
              return Effect.forEach(chunksOf(records, INSERT_CHUNK), (chunk) => sql`INSERT INTO rows ${sql.insert(chunk)} ON CONFLICT DO NOTHING`, {
                discard: true
              })
            })
          )
        )
      )
      yield* afterLoad
      return yield* db.write(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          yield* sql`UPDATE batches SET state = 'open', updated_at = ${now}
            WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = 'loading'`
          return yield* existingBatch(accountId, batchId)
        })
      )
    }).pipe(Effect.withSpan("Batches.createBatch"))

  const setBatchState: StoreDriver["setBatchState"] = (accountId, batchId, state, pauseReason = null) =>
    db.write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const updated = yield* sql`UPDATE batches SET state = ${state}, pause_reason = ${pauseReason},
          updated_at = ${now} WHERE account_id = ${accountId} AND batch_id = ${batchId} RETURNING batch_id`
        if (updated.length === 0) return yield* batchNotFound(batchId)
      })
    ).pipe(Effect.withSpan("Batches.setBatchState"))

  // Lease times come from the store's clock (the database's on PostgreSQL, DESIGN 12); other stamps from the Clock.
  const acquireLease: StoreDriver["acquireLease"] = (accountId, batchId, owner, ttl) =>
    db.write(
      Effect.gen(function* () {
        const [now, leaseAt] = [yield* Clock.currentTimeMillis, yield* db.now]
        // A new lease (free, expired or another's) gets the next fencing number; its holder keeps its own.
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
    ).pipe(Effect.withSpan("Batches.acquireLease"))

  const renewLease: StoreDriver["renewLease"] = (accountId, batchId, fence, ttl) =>
    db.write(
      Effect.gen(function* () {
        const [now, leaseAt] = [yield* Clock.currentTimeMillis, yield* db.now]
        const renewed = yield* sql`UPDATE batches
          SET lease_expires_at = ${leaseAt} + ${Math.round(Duration.toMillis(ttl))}, updated_at = ${now}
          WHERE account_id = ${accountId} AND batch_id = ${batchId}
            AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}
          RETURNING batch_id`
        return renewed.length > 0
      })
    ).pipe(Effect.withSpan("Batches.renewLease"))

  const releaseLease: StoreDriver["releaseLease"] = (accountId, batchId, owner) =>
    db.write(
      sql`UPDATE batches SET lease_owner = NULL, lease_expires_at = NULL
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND lease_owner = ${owner}`
    ).pipe(Effect.asVoid, Effect.withSpan("Batches.releaseLease"))

  const deleteBatch: StoreDriver["deleteBatch"] = (accountId, batchId) =>
    db.write(
      Effect.gen(function* () {
        // PostgreSQL: every row write share-locks its batch; this lock waits for them and keeps new
        // ones out until the check and the deletes are done. SQLite's write lock already does.
        yield* sql.onDialectOrElse({
          pg: () => sql`SELECT batch_id FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId} FOR UPDATE`,
          orElse: () => Effect.void
        })
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
    ).pipe(Effect.withSpan("Batches.deleteBatch"))

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

/** Batches and their lease: create, list, state, lease, delete, counts and totals. */
export class Batches extends Effect.Service<Batches>()("store/Batches", { effect: Effect.map(StoreDb, makeBatches) }) {}
