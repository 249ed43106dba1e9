/**
 * Claims, releases and transitions of rows: the row state machine of DESIGN 7, worked out once. The
 * dialects differ only in how they lock. SQLite has one writer (BEGIN IMMEDIATE): its statements are
 * plain. PostgreSQL share-locks the batch's lease in the statement itself (fencing, `leaseCte`), picks
 * claimed rows FOR UPDATE SKIP LOCKED so workers take disjoint rows without waiting, and names locked
 * rows by their tuple ids, which keeps every plan a TID fetch whatever the statistics say.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { ClaimSelection, EventSource, Fence } from "../Model.ts"
import type { RowState } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decodeRows, insertEvents, ROW_COLUMNS } from "./Columns.ts"
import { type Db, eachPart, isPostgres, oneOf, pgArray, StoreDb } from "./Db.ts"
import { leaseCte } from "./LeaseLock.ts"
import { makeTransitions } from "./Transitions.ts"

interface Move {
  readonly from: RowState
  readonly to: RowState
  readonly set: Fragment
  readonly source: EventSource
  readonly detail?: string | undefined
}

export const makeClaims = (db: Db) => {
  const { sql } = db
  const isPg = isPostgres(sql)
  const { recordTransition, recordTransitions } = makeTransitions(db)

  /** The claim's fencing (DESIGN 7): only while `fence` is the batch's lease and unexpired, checked in the claim's statement. */
  const holding = (accountId: string, batchId: string, fence: Fence | undefined, now: Fragment) =>
    isPg
      ? sql`EXISTS (SELECT 1 FROM lease)`
      : fence === undefined
      ? sql`1 = 1`
      : sql`EXISTS (SELECT 1 FROM batches b WHERE b.account_id = ${accountId} AND b.batch_id = ${batchId}
          AND b.lease_owner = ${fence.owner} AND b.lease_fence = ${fence.number} AND b.lease_expires_at > ${now})`

  /**
   * One conditional UPDATE (rows still in `move.from`) and the events of the rows it moved. PostgreSQL
   * does both in one statement after `ctes` (the lease, the picked rows); SQLite in two.
   */
  const moveRows = (accountId: string, batchId: string, move: Move, which: ReadonlyArray<Fragment>, now: number, ctes: ReadonlyArray<Fragment>) =>
    isPg
      ? eachPart(which, (where) =>
        sql`${sql.csv("WITH", [...ctes, sql`moved AS (
            UPDATE rows SET state = ${move.to}, ${move.set}, updated_at = ${now}
            WHERE state = ${move.from} AND ${where}
            RETURNING ${sql.literal(ROW_COLUMNS)})`, sql`logged AS (
            INSERT INTO row_events (account_id, batch_id, idx, at, from_state, to_state, source, detail)
            SELECT account_id, batch_id, idx, ${now}::bigint, ${move.from}::text, ${move.to}::text, ${move.source}::text,
              ${move.detail ?? null}::text
            FROM moved ORDER BY idx)`])} SELECT * FROM moved ORDER BY idx`.pipe(Effect.flatMap(decodeRows)))
      : Effect.gen(function* () {
        const moved = yield* eachPart(which, (where) =>
          sql`UPDATE rows SET state = ${move.to}, ${move.set}, updated_at = ${now}
            WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = ${move.from} AND ${where}
            RETURNING ${sql.literal(ROW_COLUMNS)}`.pipe(Effect.flatMap(decodeRows)))
        const sorted = [...moved].sort((a, b) => a.idx - b.idx)
        yield* insertEvents(sql, sorted.map(({ idx }) => ({
          accountId, batchId, idx, at: now, from: move.from, to: move.to, source: move.source, detail: move.detail ?? null
        })))
        return sorted
      })

  /** `where` for each part of a list of idxs, within the batch (PostgreSQL names the batch here; SQLite in moveRows). */
  const byIdx = (accountId: string, batchId: string, idxs: ReadonlyArray<number>, where: Fragment) =>
    oneOf(sql, sql`idx`, idxs, "int").map((part) =>
      isPg ? sql`account_id = ${accountId} AND batch_id = ${batchId} AND ${part} AND ${where}` : sql`${part} AND ${where}`)

  // The intent names the runner that holds the lease now: a row taken over from another owner is never
  // resent automatically unless that owner released it or is proven dead (DESIGN 7, rule 5). On
  // PostgreSQL its nonce settles a claim whose COMMIT was cut off (DESIGN 12): found, the rows were claimed.
  const intent = (now: number, nonce: string) =>
    isPg
      ? sql`attempts = attempts + 1, intent_at = ${now}, ended_at = NULL, intent_owner = (SELECT lease_owner FROM lease), claim_nonce = ${nonce}`
      : sql`attempts = attempts + 1, intent_at = ${now}, ended_at = NULL,
        intent_owner = (SELECT lease_owner FROM batches b WHERE b.account_id = rows.account_id AND b.batch_id = rows.batch_id)`

  /** The rows a PostgreSQL claim with this nonce moved, if it committed. */
  const claimedWith = (accountId: string, batchId: string, nonce: string) =>
    isPg
      ? sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND claim_nonce = ${nonce} ORDER BY idx`.pipe(Effect.flatMap(decodeRows))
      : Effect.dieMessage("SQLite commits are local: a claim is never read back")

  /** The lease CTE of a claim (PostgreSQL): under a fence, only while that lease is the batch's and unexpired. */
  const claimCtes = (accountId: string, batchId: string, fence: Fence | undefined, now: Fragment) =>
    isPg ? [leaseCte(sql, accountId, batchId, fence, fence === undefined ? undefined : now)] : []

  const claimRows: StoreDriver["claimRows"] = (accountId, batchId, selection: ClaimSelection) => {
    const nonce = randomUUID()
    return db.writeOrReadBack(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const leaseAt = yield* db.now
        const held = holding(accountId, batchId, selection.fence, leaseAt)
        const move: Move = { from: "validated", to: "submitting", set: intent(now, nonce), source: "claim" }
        const lease = claimCtes(accountId, batchId, selection.fence, leaseAt)
        if (isPg) {
          const mine = sql`account_id = ${accountId} AND batch_id = ${batchId} AND state = 'validated' AND alarm IS NULL AND ${held}`
          // Named rows wait for a lock rather than skip it: each of them is claimed if still validated.
          const picked = "idxs" in selection
            ? sql`picked AS (SELECT ctid FROM rows WHERE ${mine} AND idx = ANY(${pgArray(sql, selection.idxs, "int")}) ORDER BY idx FOR UPDATE)`
            : sql`picked AS (SELECT ctid FROM rows WHERE ${mine}
                ${selection.currency === undefined ? sql`` : sql`AND currency = ${selection.currency}`}
                ${(selection.excludeOperators ?? []).length === 0 ? sql`` : sql`AND operator <> ALL(${pgArray(sql, selection.excludeOperators ?? [], "text")})`}
                ORDER BY idx LIMIT ${Math.max(0, selection.limit)} FOR UPDATE SKIP LOCKED)`
          return yield* moveRows(accountId, batchId, move, [sql`ctid = ANY(ARRAY(SELECT ctid FROM picked))`], now, [...lease, picked])
        }
        const which = "idxs" in selection
          ? byIdx(accountId, batchId, selection.idxs, sql`alarm IS NULL AND ${held}`)
          : [sql`${held} AND idx IN (
              SELECT idx FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = 'validated' AND alarm IS NULL
                ${selection.currency === undefined ? sql`` : sql`AND currency = ${selection.currency}`}
                ${(selection.excludeOperators ?? []).length === 0 ? sql`` : sql`AND operator NOT IN ${sql.in(selection.excludeOperators ?? [])}`}
              ORDER BY idx LIMIT ${Math.max(0, selection.limit)})`]
        return yield* moveRows(accountId, batchId, move, which, now, lease)
      }),
      claimedWith(accountId, batchId, nonce)
    ).pipe(Effect.withSpan("Claims.claimRows"))
  }

  const claimForResend: StoreDriver["claimForResend"] = (accountId, batchId, idxs, detail, fence) => {
    const nonce = randomUUID()
    return db.writeOrReadBack(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const leaseAt = yield* db.now
        const move: Move = { from: "unknown", to: "submitting", set: sql`${intent(now, nonce)}, resends = resends + 1, alarm = NULL`, source: "reconcile", detail }
        const held = holding(accountId, batchId, fence, leaseAt)
        return yield* moveRows(accountId, batchId, move, byIdx(accountId, batchId, idxs, held), now, claimCtes(accountId, batchId, fence, leaseAt))
      }),
      claimedWith(accountId, batchId, nonce)
    ).pipe(Effect.withSpan("Claims.claimForResend"))
  }

  const releaseRows: StoreDriver["releaseRows"] = (accountId, batchId, idxs, detail, owner) =>
    db.write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const lease = isPg ? [leaseCte(sql, accountId, batchId, undefined)] : []
        const named = (where: Fragment) => byIdx(accountId, batchId, idxs, isPg ? sql`${where} AND EXISTS (SELECT 1 FROM lease)` : where)
        const oneLess = sql`attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END`
        const move: Move = { from: "submitting", to: "validated", set: sql`${oneLess}, intent_owner = NULL, ended_at = NULL, alarm = NULL, candidates = NULL`, source: "release", detail }
        // A resend never sent: the row goes back to unknown (the first request's outcome is still
        // unproven), its one automatic resend not spent; the grace counts again from now.
        const unsentResends = yield* moveRows(
          accountId,
          batchId,
          { from: "submitting", to: "unknown", set: sql`${oneLess}, resends = resends - 1, ended_at = ${now}`, source: "release", detail },
          named(sql`resends > 0`),
          now,
          lease
        )
        const released = [...unsentResends, ...(yield* moveRows(accountId, batchId, move, named(sql`resends = 0`), now, lease))]
        if (owner === undefined) return released
        // The owner itself knows these were never sent, even if another runner has since found them
        // in submitting and made them unknown: they go back to validated, to be paid once.
        const more = yield* moveRows(accountId, batchId, { ...move, from: "unknown" }, named(sql`intent_owner = ${owner} AND resends = 0`), now, lease)
        return [...released, ...more]
      })
    ).pipe(
      Effect.map((rows) => rows.map((row) => row.idx)),
      Effect.withSpan("Claims.releaseRows")
    )

  return { claimRows, claimForResend, releaseRows, recordTransition, recordTransitions } satisfies Partial<StoreDriver>
}

/** Claims, releases and transitions of rows: the row state machine. */
export class Claims extends Effect.Service<Claims>()("store/Claims", { effect: Effect.map(StoreDb, makeClaims) }) {}
