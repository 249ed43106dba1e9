/** Claims and transitions of rows, for the SQLite adapter (the reads are in ../RowReads.ts). */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect } from "effect"
import { type ClaimSelection, type EventSource, type Fence, StoreError } from "../Model.ts"
import type { RowState } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import {
  chunksOf,
  decodeRows,
  insertEvents,
  ROW_COLUMNS
} from "./Queries.ts"
import type { WriteTransaction } from "./Transaction.ts"
import { applyTransitions } from "./Transitions.ts"

const IN_CHUNK = 500

export const makeRows = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  interface Move {
    readonly from: RowState
    readonly to: RowState
    readonly set: Fragment
    readonly source: EventSource
    readonly detail?: string | undefined
  }

  /** One conditional UPDATE per chunk, then the events of the rows it actually moved. */
  const moveRows = (accountId: string, batchId: string, move: Move, which: ReadonlyArray<Fragment>, now: number) =>
    Effect.gen(function* () {
      const moved = yield* Effect.forEach(which, (where) =>
        sql`UPDATE rows SET state = ${move.to}, ${move.set}, updated_at = ${now}
          WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = ${move.from} AND ${where}
          RETURNING ${sql.literal(ROW_COLUMNS)}`.pipe(Effect.flatMap(decodeRows))
      )
      const sorted = moved.flat().sort((a, b) => a.idx - b.idx)
      yield* insertEvents(
        sql,
        sorted.map(({ idx }) => ({
          accountId, batchId, idx, at: now, from: move.from, to: move.to, source: move.source,
          detail: move.detail ?? null
        }))
      )
      return sorted
    })

  const byIdx = (idxs: ReadonlyArray<number>) => chunksOf(idxs, IN_CHUNK).map((chunk) => sql`idx IN ${sql.in(chunk)}`)

  // The intent names the runner that holds the lease now: a row taken over from another owner is
  // never resent automatically unless that owner released it or is proven dead (DESIGN 7, rule 5).
  const intent = (now: number) => sql`attempts = attempts + 1, intent_at = ${now}, ended_at = NULL,
    intent_owner = (SELECT lease_owner FROM batches b WHERE b.account_id = rows.account_id AND b.batch_id = rows.batch_id)`

  /**
   * Fencing (DESIGN 7): a claim under `fence` applies only while that lease (owner and number) is the
   * batch's and unexpired, checked in the same statement (the same transaction) as the claim.
   */
  const holding = (accountId: string, batchId: string, fence: Fence | undefined, now: number) =>
    fence === undefined
      ? []
      : [sql`EXISTS (SELECT 1 FROM batches b WHERE b.account_id = ${accountId} AND b.batch_id = ${batchId}
          AND b.lease_owner = ${fence.owner} AND b.lease_fence = ${fence.number} AND b.lease_expires_at > ${now})`]

  /**
   * Fencing of a transition: the lease is still this one (no one took it over since). Its expiry is
   * not required: a lapsed lease nobody took is still only this writer's, and recording what the
   * service answered is what keeps a later runner from guessing.
   */
  const stillHeld = (accountId: string, batchId: string, fence: Fence | undefined) =>
    fence === undefined
      ? Effect.void
      : sql`SELECT 1 AS held FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}
          AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}`.pipe(
          Effect.flatMap((found) =>
            found.length > 0
              ? Effect.void
              : new StoreError({ reason: "Fenced", message: `batch ${batchId}: lease ${fence.number} of ${fence.owner} was taken over` })
          )
        )

  const withFence = (which: ReadonlyArray<Fragment>, fence: ReadonlyArray<Fragment>) =>
    fence.length === 0 ? which : which.map((where) => sql`${where} AND ${fence[0]}`)

  const claimRows: StoreDriver["claimRows"] = (accountId, batchId, selection: ClaimSelection) =>
    write(
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const move: Move = { from: "validated", to: "submitting", set: intent(now), source: "claim" }
        const which = "idxs" in selection
          ? byIdx(selection.idxs).map((where) => sql`${where} AND alarm IS NULL`)
          : [sql`idx IN (
              SELECT idx FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = 'validated' AND alarm IS NULL
                ${selection.currency === undefined ? sql`` : sql`AND currency = ${selection.currency}`}
                ${(selection.excludeOperators ?? []).length === 0 ? sql`` : sql`AND operator NOT IN ${sql.in(selection.excludeOperators ?? [])}`}
              ORDER BY idx LIMIT ${Math.max(0, selection.limit)})`]
        return moveRows(accountId, batchId, move, withFence(which, holding(accountId, batchId, selection.fence, now)), now)
      })
    ).pipe(Effect.withSpan("StateStore.claimRows"))

  const claimForResend: StoreDriver["claimForResend"] = (accountId, batchId, idxs, detail, fence) =>
    write(
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const move: Move = { from: "unknown", to: "submitting", set: sql`${intent(now)}, resends = resends + 1, alarm = NULL`, source: "reconcile", detail }
        return moveRows(accountId, batchId, move, withFence(byIdx(idxs), holding(accountId, batchId, fence, now)), now)
      })
    ).pipe(Effect.withSpan("StateStore.claimForResend"))

  const releaseRows: StoreDriver["releaseRows"] = (accountId, batchId, idxs, detail, owner) =>
    write(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const set = sql`attempts = MAX(attempts - 1, 0), intent_owner = NULL, ended_at = NULL, alarm = NULL, candidates = NULL`
        const move: Move = { from: "submitting", to: "validated", set, source: "release", detail }
        // A resend never sent: the row goes back to unknown (the first request's outcome is still
        // unproven), its one automatic resend not spent; the grace counts again from now.
        const resent = byIdx(idxs).map((where) => sql`${where} AND resends > 0`)
        const unsentResends = yield* moveRows(
          accountId,
          batchId,
          { from: "submitting", to: "unknown", set: sql`attempts = MAX(attempts - 1, 0), resends = resends - 1, ended_at = ${now}`, source: "release", detail },
          resent,
          now
        )
        const released = [...unsentResends, ...(yield* moveRows(accountId, batchId, move, byIdx(idxs).map((where) => sql`${where} AND resends = 0`), now))]
        if (owner === undefined) return released
        // The owner itself knows these were never sent, even if another runner has since found them
        // in submitting and made them unknown: they go back to validated, to be paid once.
        const mine = byIdx(idxs).map((where) => sql`${where} AND intent_owner = ${owner} AND resends = 0`)
        const more = yield* moveRows(accountId, batchId, { ...move, from: "unknown" }, mine, now)
        return [...released, ...more]
      })
    ).pipe(
      Effect.map((rows) => rows.map((row) => row.idx)),
      Effect.withSpan("StateStore.releaseRows")
    )

  const recordTransitions: StoreDriver["recordTransitions"] = (accountId, batchId, transitions, fence) =>
    write(
      Effect.zipRight(
        stillHeld(accountId, batchId, fence),
        Effect.flatMap(Clock.currentTimeMillis, (now) => applyTransitions(sql, accountId, batchId, transitions, now))
      )
    ).pipe(Effect.withSpan("StateStore.recordTransitions"))

  const recordTransition: StoreDriver["recordTransition"] = (accountId, batchId, transition, fence) =>
    recordTransitions(accountId, batchId, [transition], fence).pipe(Effect.map((applied) => applied[0] === true))

  return {
    claimRows,
    claimForResend,
    releaseRows,
    recordTransition,
    recordTransitions
  } satisfies Partial<StoreDriver>
}
