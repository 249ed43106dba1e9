/**
 * What only the PostgreSQL adapter has to prove (DESIGN 12): stores in separate processes (here,
 * separate pools) share one database safely, migrations race-free, leases on the database's clock, lost
 * connections retried only where that is safe, and no password in any message.
 */
import { describe, expect, it } from "@effect/vitest"
import type { PgClient } from "@effect/sql-pg"
import { Cause, DateTime, Effect, Fiber, Layer, Option, Schema, TestClock } from "effect"
import { BatchId, MinorUnits, Reference } from "../../src/domain/Ids.ts"
import { MIGRATION_LOCK, MIGRATIONS } from "../../src/store/Postgres/Migrations.ts"
import * as PostgresStateStore from "../../src/store/PostgresStateStore.ts"
import { ACCOUNT, newBatch, rowInput, rowInputs } from "./fixtures.ts"
import { adminClient, freshSchema, openPostgres, POSTGRES_ADAPTERS } from "./postgres.ts"

const B1 = BatchId.make("b1")
const Pids = Schema.Array(Schema.Struct({ pid: Schema.Number }))
// The test's own client reads int8 as pg does by default: text.
const Millis = Schema.Array(Schema.Struct({ ms: Schema.NumberFromString }))

/** A connection of the test's own holding `statement` in an open transaction, as another process would. */
const holdInTransaction = (sql: PgClient.PgClient, statement: string) =>
  Effect.gen(function* () {
    const conn = yield* sql.reserve
    yield* conn.executeUnprepared("BEGIN", [], undefined)
    yield* conn.executeUnprepared(statement, [], undefined)
    const [{ pid }] = yield* Effect.flatMap(conn.executeUnprepared("SELECT pg_backend_pid() AS pid", [], undefined), Schema.decodeUnknown(Pids))
    return { pid, rollback: Effect.orDie(conn.executeUnprepared("ROLLBACK", [], undefined)) }
  }).pipe(Effect.orDie)

/** Backends waiting on a lock the connection `holder` holds. */
const blockedBy = (sql: PgClient.PgClient, holder: number) =>
  sql`SELECT pid FROM pg_stat_activity WHERE ${holder}::int = ANY(pg_blocking_pids(pid))`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Pids)),
    Effect.orDie
  )

const waitUntilBlocked = (sql: PgClient.PgClient, holder: number) =>
  blockedBy(sql, holder).pipe(
    Effect.repeat({ until: (pids) => pids.length > 0 }),
    Effect.timeout("20 seconds"),
    Effect.orDie
  )

const databaseNow = (sql: PgClient.PgClient) =>
  sql`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS ms`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Millis)),
    Effect.map((rows) => rows[0].ms),
    Effect.orDie
  )

describe.skipIf(POSTGRES_ADAPTERS.length === 0)("PostgreSQL only", () => {
  it.live("two stores (two pools, as two processes) claiming at the same moment never claim a row twice", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const [a, b] = yield* Effect.all([openPostgres(schema), openPostgres(schema)], { concurrency: 2 })
      yield* a.store.createBatch(newBatch("b1"), rowInputs(1_500))
      const fence = Option.getOrThrow(yield* a.store.batch(ACCOUNT, B1).acquireLease("runner-a", "5 minutes"))
      const claimLoop = (store: typeof a.store) =>
        Effect.iterate([] as ReadonlyArray<number>, {
          while: (got) => got.at(-1) !== -1,
          body: (got) =>
            Effect.map(store.batch(ACCOUNT, B1).claimRows({ limit: 17, fence }), (rows) =>
              rows.length === 0 ? [...got, -1] : [...got, ...rows.map((r) => r.idx)]
            )
        })
      const claimers = [a.store, b.store, a.store, b.store, a.store, b.store]
      const got = yield* Effect.all(claimers.map(claimLoop), { concurrency: "unbounded" })
      const all = got.flat().filter((idx) => idx >= 0)
      expect(all.length).toBe(1_500)
      expect(new Set(all).size).toBe(1_500)
      expect(got.every((taken) => taken.length > 1)).toBe(true)
      expect((yield* b.store.batch(ACCOUNT, B1).events()).length).toBe(1_500)
      expect((yield* b.store.batch(ACCOUNT, B1).countByState()).submitting).toBe(1_500)
      yield* Effect.all([a.close, b.close])
    }).pipe(Effect.scoped)
  )

  it.live("a claim skips rows another transaction holds locked instead of waiting for them", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { close, store } = yield* openPostgres(schema)
      yield* store.createBatch(newBatch("b1"), rowInputs(30))
      const sql = yield* adminClient
      const other = yield* holdInTransaction(sql, `SELECT idx FROM ${schema}.rows WHERE idx < 10 FOR UPDATE`)
      const claimed = yield* store.batch(ACCOUNT, B1).claimRows({ limit: 5 }).pipe(Effect.timeout("5 seconds"))
      expect(claimed.map((r) => r.idx)).toEqual([10, 11, 12, 13, 14])
      yield* other.rollback
      expect((yield* store.batch(ACCOUNT, B1).claimRows({ limit: 5 })).map((r) => r.idx)).toEqual([0, 1, 2, 3, 4])
      yield* close
    }).pipe(Effect.scoped)
  )

  it.live("stores started at the same moment on a new schema all start; the migrations run once", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const sql = yield* adminClient
      yield* sql`DROP SCHEMA ${sql(schema)}`.pipe(Effect.orDie)
      const opened = yield* Effect.all(Array.from({ length: 4 }, () => openPostgres(schema)), { concurrency: "unbounded" })
      const applied = yield* sql`SELECT migration_id AS pid FROM ${sql(schema)}.store_migrations ORDER BY migration_id`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Pids)),
        Effect.orDie
      )
      expect(applied.map((row) => row.pid)).toEqual(MIGRATIONS.map(([id]) => id))
      yield* opened[0].store.createBatch(newBatch("b1"), rowInputs(3))
      expect((yield* opened[3].store.batch(ACCOUNT, B1).countByState()).validated).toBe(3)
      yield* Effect.all(opened.map((o) => o.close))
    }).pipe(Effect.scoped)
  )

  it.live("a store starting while another migrates waits for the advisory lock, then starts", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const sql = yield* adminClient
      const migrating = yield* holdInTransaction(sql, `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}, hashtext('${schema}'))`)
      const starting = yield* Effect.fork(openPostgres(schema))
      yield* waitUntilBlocked(sql, migrating.pid)
      expect(Option.isNone(yield* Fiber.poll(starting))).toBe(true)
      yield* migrating.rollback
      const { close, store } = yield* Fiber.join(starting)
      expect(yield* store.batch(ACCOUNT, B1).getBatch()).toEqual(Option.none())
      yield* close
    }).pipe(Effect.scoped)
  )

  it.scoped("leases run on the database's clock, not the process's", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { close, store } = yield* openPostgres(schema)
      const sql = yield* adminClient
      yield* store.createBatch(newBatch("b1"), rowInputs(3))
      const before = yield* databaseNow(sql)
      const fence = Option.getOrThrow(yield* store.batch(ACCOUNT, B1).acquireLease("runner-a", "30 seconds"))
      const after = yield* databaseNow(sql)
      const expires = Option.getOrThrow(yield* store.batch(ACCOUNT, B1).getBatch()).leaseExpiresAt
      const expiresMs = expires === null ? 0 : DateTime.toEpochMillis(expires)
      expect(expiresMs).toBeGreaterThanOrEqual(before + 30_000)
      expect(expiresMs).toBeLessThanOrEqual(after + 30_000)
      // The process's clock jumping an hour ahead expires nothing: the database's has not moved.
      yield* TestClock.adjust("1 hour")
      expect(yield* store.batch(ACCOUNT, B1).acquireLease("runner-b", "30 seconds")).toEqual(Option.none())
      expect((yield* store.batch(ACCOUNT, B1).claimRows({ limit: 1, fence })).map((r) => r.idx)).toEqual([0])
      yield* close
    })
  )

  it.live("a lease expires by the database's clock: the next owner gets a greater fence, the old fence writes nothing", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { close, store } = yield* openPostgres(schema)
      const batch = store.batch(ACCOUNT, B1)
      yield* store.createBatch(newBatch("b1"), rowInputs(4))
      const a = Option.getOrThrow(yield* batch.acquireLease("runner-a", "1 second"))
      expect((yield* batch.claimRows({ limit: 1, fence: a })).map((r) => r.idx)).toEqual([0])
      expect(yield* batch.acquireLease("runner-b", "1 minute")).toEqual(Option.none())
      yield* Effect.sleep("1200 millis")
      // Expired but not yet taken: a claim needs an unexpired lease, an answer only that nobody took it.
      expect(yield* batch.claimRows({ limit: 1, fence: a })).toEqual([])
      expect(yield* batch.recordTransition({ idx: 0, to: "pending", reference: Reference.make("r0"), source: "response" }, a)).toBe(true)
      const b = Option.getOrThrow(yield* batch.acquireLease("runner-b", "1 minute"))
      expect(b.number).toBeGreaterThan(a.number)
      expect(yield* batch.renewLease(a, "1 minute")).toBe(false)
      const refused = yield* Effect.flip(batch.recordTransition({ idx: 0, to: "completed", source: "poll" }, a))
      expect(refused.reason).toBe("Fenced")
      expect((yield* batch.claimRows({ limit: 1, fence: b })).map((r) => [r.idx, r.intentOwner])).toEqual([[1, "runner-b"]])
      yield* close
    }).pipe(Effect.scoped)
  )

  it.live("a write whose connection is lost before COMMIT is run again, once", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { close, store } = yield* openPostgres(schema)
      const batch = store.batch(ACCOUNT, B1)
      yield* store.createBatch(newBatch("b1"), rowInputs(2))
      yield* batch.claimRows({ idxs: [0] })
      const sql = yield* adminClient
      const other = yield* holdInTransaction(sql, `SELECT idx FROM ${schema}.rows WHERE idx = 0 FOR UPDATE`)
      const answer = yield* Effect.fork(batch.recordTransition({ idx: 0, to: "pending", reference: Reference.make("r0"), source: "response" }))
      const [victim] = yield* waitUntilBlocked(sql, other.pid)
      yield* sql`SELECT pg_terminate_backend(${victim.pid})`.pipe(Effect.orDie)
      // Its retry, on a new connection, waits on the same lock.
      yield* Effect.sleep("100 millis")
      yield* waitUntilBlocked(sql, other.pid)
      yield* other.rollback
      expect(yield* Fiber.join(answer)).toBe(true)
      expect((yield* batch.events(0)).map((e) => e.toState)).toEqual(["submitting", "pending"])
      yield* close
    }).pipe(Effect.scoped)
  )

  it.live("a read whose connection is lost is retried on a new one", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { close, store } = yield* openPostgres(schema)
      yield* store.createBatch(newBatch("b1"), rowInputs(2))
      const sql = yield* adminClient
      const other = yield* holdInTransaction(sql, `LOCK TABLE ${schema}.rows IN ACCESS EXCLUSIVE MODE`)
      const counting = yield* Effect.fork(store.batch(ACCOUNT, B1).countByState())
      const [victim] = yield* waitUntilBlocked(sql, other.pid)
      yield* sql`SELECT pg_terminate_backend(${victim.pid})`.pipe(Effect.orDie)
      yield* Effect.sleep("100 millis")
      yield* waitUntilBlocked(sql, other.pid)
      yield* other.rollback
      expect((yield* Fiber.join(counting)).validated).toBe(2)
      yield* close
    }).pipe(Effect.scoped)
  )

  it.scoped("epoch milliseconds and amounts beyond 2^31 come back as numbers", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { close, store } = yield* openPostgres(schema, { clock: "effect" })
      yield* TestClock.adjust("20000 days")
      yield* store.createBatch(newBatch("b1"), [rowInput(0, { amountMinor: MinorUnits.make(9_000_000_000_000) })])
      yield* store.batch(ACCOUNT, B1).claimRows({ limit: 1 })
      const row = Option.getOrThrow(yield* store.batch(ACCOUNT, B1).getRow(0))
      expect(row.amountMinor).toBe(9_000_000_000_000)
      expect(row.intentAt && DateTime.toEpochMillis(row.intentAt)).toBe(20_000 * 86_400_000)
      const [totals] = yield* store.batch(ACCOUNT, B1).currencyTotals()
      expect([totals.rows, totals.amountMinor]).toEqual([1, 9_000_000_000_000])
      yield* close
    })
  )

  it.live("an unreachable database is Unavailable, named without its password", () =>
    Effect.gen(function* () {
      const layer = PostgresStateStore.layer({ url: "postgres://payer:s3cret-pw@127.0.0.1:1/test", connectTimeout: "3 seconds" })
      const error = yield* Effect.flip(Effect.scoped(Layer.build(layer)))
      expect(error.reason).toBe("Unavailable")
      expect(error.message).toContain("postgres://payer@127.0.0.1:1/test")
      expect(error.message).toContain("connection refused")
      expect(Cause.pretty(Cause.fail(error))).not.toContain("s3cret-pw")
      expect(JSON.stringify(error)).not.toContain("s3cret-pw")
    })
  )
})
