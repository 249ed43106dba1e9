/**
 * Claims, releases and transitions, for the PostgreSQL adapter. A claim is one statement: it
 * share-locks the batch's lease (fencing, Queries.leaseCte), picks its rows FOR UPDATE SKIP LOCKED so
 * workers claiming at the same moment take disjoint rows without waiting on each other, moves them and
 * logs their events.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { ClaimSelection, EventSource } from "../Model.ts"
import type { RowState } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decodeRows, intArray, leaseCte, ROW_COLUMNS, textArray } from "./Queries.ts"
import type { Access } from "./Transaction.ts"
import { applyTransitions } from "./Transitions.ts"

interface Move {
  readonly from: RowState
  readonly to: RowState
  readonly set: Fragment
  readonly source: EventSource
  readonly detail?: string | undefined
}

export const makeClaims = (db: Access, leaseNow: Effect.Effect<Fragment>) => {
  const { sql } = db

  /** The batch's rows meeting `where`. */
  const ofBatch = (accountId: string, batchId: string, where: Fragment) =>
    sql`account_id = ${accountId} AND batch_id = ${batchId} AND ${where}`

  /**
   * The rows the CTE `picked` locked in this statement, by their tuple ids (it checked the batch).
   * Written without the batch's columns, no index applies and the UPDATE is a TID scan of exactly
   * those rows whatever the statistics say: named by idx next to the batch, it scanned every validated
   * row of the batch at each claim when the planner took the batch for one row (a table never analyzed).
   */
  const lockedRows = sql`ctid = ANY(ARRAY(SELECT ctid FROM picked))`

  /** One conditional UPDATE (rows still in `move.from`) and the events of the rows it actually moved, in one statement. */
  const moveRows = (move: Move, which: Fragment, now: number, ctes: ReadonlyArray<Fragment>) => {
    const moved = sql`moved AS (
      UPDATE rows SET state = ${move.to}, ${move.set}, updated_at = ${now}
      WHERE state = ${move.from} AND ${which}
      RETURNING ${sql.literal(ROW_COLUMNS)})`
    const logged = sql`logged AS (
      INSERT INTO row_events (account_id, batch_id, idx, at, from_state, to_state, source, detail)
      SELECT account_id, batch_id, idx, ${now}::bigint, ${move.from}::text, ${move.to}::text, ${move.source}::text,
        ${move.detail ?? null}::text
      FROM moved ORDER BY idx)`
    return sql`${sql.csv("WITH", [...ctes, moved, logged])} SELECT * FROM moved ORDER BY idx`.pipe(
      Effect.flatMap(decodeRows)
    )
  }

  // The intent names the runner that holds the lease now: a row taken over from another owner is
  // never resent automatically unless that owner released it or is proven dead (DESIGN 7, rule 5).
  // Its nonce settles a claim whose COMMIT was cut off (DESIGN 12): found, the rows were claimed.
  const intent = (now: number, nonce: string) =>
    sql`attempts = attempts + 1, intent_at = ${now}, ended_at = NULL, intent_owner = (SELECT lease_owner FROM lease), claim_nonce = ${nonce}`

  /** The rows a claim with this nonce moved, if it committed; none if it did not. */
  const claimedWith = (accountId: string, batchId: string, nonce: string) =>
    sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows
      WHERE account_id = ${accountId} AND batch_id = ${batchId} AND claim_nonce = ${nonce} ORDER BY idx`.pipe(Effect.flatMap(decodeRows))

  /** The lease CTE of a claim: under a fence, only while that lease is the batch's and unexpired. */
  const claimLease = (accountId: string, batchId: string, fence: ClaimSelection["fence"]) =>
    fence === undefined
      ? Effect.succeed(leaseCte(sql, accountId, batchId, undefined))
      : Effect.map(leaseNow, (now) => leaseCte(sql, accountId, batchId, fence, now))

  const claimRows: StoreDriver["claimRows"] = (accountId, batchId, selection) => {
    const nonce = randomUUID()
    return db.writeOrReadBack(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const lease = yield* claimLease(accountId, batchId, selection.fence)
        const mine = sql`account_id = ${accountId} AND batch_id = ${batchId} AND state = 'validated' AND alarm IS NULL
          AND EXISTS (SELECT 1 FROM lease)`
        // Named rows wait for a lock rather than skip it: each of them is claimed if still validated.
        const picked = "idxs" in selection
          ? sql`picked AS (SELECT ctid FROM rows WHERE ${mine} AND idx = ANY(${intArray(sql, selection.idxs)})
              ORDER BY idx FOR UPDATE)`
          : sql`picked AS (SELECT ctid FROM rows WHERE ${mine}
              ${selection.currency === undefined ? sql`` : sql`AND currency = ${selection.currency}`}
              ${(selection.excludeOperators ?? []).length === 0 ? sql`` : sql`AND operator <> ALL(${textArray(sql, selection.excludeOperators ?? [])})`}
              ORDER BY idx LIMIT ${Math.max(0, selection.limit)} FOR UPDATE SKIP LOCKED)`
        const move: Move = { from: "validated", to: "submitting", set: intent(now, nonce), source: "claim" }
        return yield* moveRows(move, lockedRows, now, [lease, picked])
      }),
      claimedWith(accountId, batchId, nonce)
    ).pipe(Effect.withSpan("StateStore.claimRows"))
  }

  const claimForResend: StoreDriver["claimForResend"] = (accountId, batchId, idxs, detail, fence) => {
    const nonce = randomUUID()
    return db.writeOrReadBack(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const lease = yield* claimLease(accountId, batchId, fence)
        const move: Move = {
          from: "unknown",
          to: "submitting",
          set: sql`${intent(now, nonce)}, resends = resends + 1, alarm = NULL`,
          source: "reconcile",
          detail
        }
        const which = sql`idx = ANY(${intArray(sql, idxs)}) AND EXISTS (SELECT 1 FROM lease)`
        return yield* moveRows(move, ofBatch(accountId, batchId, which), now, [lease])
      }),
      claimedWith(accountId, batchId, nonce)
    ).pipe(Effect.withSpan("StateStore.claimForResend"))
  }

  const releaseRows: StoreDriver["releaseRows"] = (accountId, batchId, idxs, detail, owner) =>
    db.write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const lease = leaseCte(sql, accountId, batchId, undefined)
        const named = sql`idx = ANY(${intArray(sql, idxs)}) AND EXISTS (SELECT 1 FROM lease)`
        const set = sql`attempts = GREATEST(attempts - 1, 0), intent_owner = NULL, ended_at = NULL, alarm = NULL, candidates = NULL`
        const move: Move = { from: "submitting", to: "validated", set, source: "release", detail }
        // A resend never sent: the row goes back to unknown (the first request's outcome is still
        // unproven), its one automatic resend not spent; the grace counts again from now.
        const unsentResends = yield* moveRows(
          { from: "submitting", to: "unknown", set: sql`attempts = GREATEST(attempts - 1, 0), resends = resends - 1, ended_at = ${now}`, source: "release", detail },
          ofBatch(accountId, batchId, sql`${named} AND resends > 0`),
          now,
          [lease]
        )
        const released = [...unsentResends, ...(yield* moveRows(move, ofBatch(accountId, batchId, sql`${named} AND resends = 0`), now, [lease]))]
        if (owner === undefined) return released
        // The owner itself knows these were never sent, even if another runner has since found them
        // in submitting and made them unknown: they go back to validated, to be paid once.
        const mine = sql`${named} AND intent_owner = ${owner} AND resends = 0`
        const more = yield* moveRows({ ...move, from: "unknown" }, ofBatch(accountId, batchId, mine), now, [lease])
        return [...released, ...more]
      })
    ).pipe(
      Effect.map((rows) => rows.map((row) => row.idx)),
      Effect.withSpan("StateStore.releaseRows")
    )

  // Forward-only and conditional, a group of transitions is safe to write twice: one whose COMMIT was
  // cut off is written again (what it already changed, it does not change again).
  const recordTransitions: StoreDriver["recordTransitions"] = (accountId, batchId, transitions, fence) => {
    const apply = Effect.flatMap(Clock.currentTimeMillis, (now) => applyTransitions(sql, accountId, batchId, transitions, now, fence))
    return db.writeOrReadBack(apply, db.write(apply)).pipe(Effect.withSpan("StateStore.recordTransitions"))
  }

  const recordTransition: StoreDriver["recordTransition"] = (accountId, batchId, transition, fence) =>
    recordTransitions(accountId, batchId, [transition], fence).pipe(Effect.map((applied) => applied[0] === true))

  return { claimRows, claimForResend, releaseRows, recordTransition, recordTransitions } satisfies Partial<StoreDriver>
}
