/** Claims, transitions and row queries, for the SQLite adapter. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Chunk, Clock, DateTime, Effect, Option, Stream } from "effect"
import { type ClaimSelection, type EventSource, type Fence, type Page, type Row, StoreError } from "../Model.ts"
import { IN_DOUBT_STATES, type RowState } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import {
  chunksOf,
  decodeEarliest,
  decodeEvents,
  decodeMatches,
  decodePending,
  decodeRows,
  EVENT_COLUMNS,
  insertEvents,
  ROW_COLUMNS
} from "./Queries.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"
import { applyTransitions } from "./Transitions.ts"

const IN_CHUNK = 500
const PAGE = 1_000
/** Narrow rows (three columns): bigger pages. */
const PENDING_PAGE = 10_000

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

  const selectRows = (where: Fragment, limit = 2) =>
    catchSql(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows WHERE ${where} ORDER BY idx LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows)
      )
    )

  const firstRow = (where: Fragment) =>
    Effect.map(selectRows(where, 1), (rows) => Option.fromNullable(rows[0]))

  const rowsInStates: StoreDriver["rowsInStates"] = (accountId, batchId, states, page: Page = {}) =>
    states.length === 0
      ? Effect.succeed([])
      : selectRows(
          sql`account_id = ${accountId} AND batch_id = ${batchId} AND state IN ${sql.in(states)}
            AND idx > ${page.afterIdx ?? -1}`,
          page.limit ?? PAGE
        )

  const paged = (fetch: (afterIdx: number) => Effect.Effect<ReadonlyArray<Row>, StoreError>, size: number) =>
    Stream.paginateChunkEffect(-1, (afterIdx) =>
      Effect.map(fetch(afterIdx), (rows) => [
        Chunk.fromIterable(rows),
        rows.length < size ? Option.none() : Option.some(rows[rows.length - 1].idx)
      ])
    )

  const streamRowsInStates: StoreDriver["streamRowsInStates"] = (accountId, batchId, states, size = PAGE) =>
    paged((afterIdx) => rowsInStates(accountId, batchId, states, { afterIdx, limit: size }), size)

  const streamPending: StoreDriver["streamPending"] = (accountId, batchId) =>
    Stream.paginateChunkEffect(-1, (afterIdx: number) =>
      catchSql(
        sql`SELECT idx, currency, amount_minor FROM rows
          WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = 'validated' AND idx > ${afterIdx}
          ORDER BY idx LIMIT ${PENDING_PAGE}`.pipe(Effect.flatMap(decodePending))
      ).pipe(
        Effect.map((rows) => [
          Chunk.fromIterable(rows.map((r) => ({ idx: r.idx, currency: r.currency, amountMinor: r.amountMinor ?? 0 }))),
          rows.length < PENDING_PAGE ? Option.none<number>() : Option.some(rows[rows.length - 1].idx)
        ] as const)
      )
    )

  const streamRows: StoreDriver["streamRows"] = (accountId, batchId, size = PAGE) =>
    paged(
      (afterIdx) => selectRows(sql`account_id = ${accountId} AND batch_id = ${batchId} AND idx > ${afterIdx}`, size),
      size
    )

  const earliestIntent: StoreDriver["earliestIntent"] = (accountId, batchId) =>
    catchSql(
      sql`SELECT MIN(intent_at) AS earliest FROM rows
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state IN ${sql.in(IN_DOUBT_STATES)}`.pipe(
        Effect.flatMap(decodeEarliest)
      )
    ).pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.earliest)))

  const matches = (
    accountId: string,
    column: "row_id" | "repeat_key",
    keys: ReadonlyArray<string>,
    excludeBatchId: string,
    extra: Fragment
  ) =>
    catchSql(
      Effect.forEach(chunksOf([...new Set(keys)], IN_CHUNK), (chunk) =>
        // INDEXED BY: left to itself, SQLite walks every row of the account in primary-key order to
        // skip the sort, one full scan per chunk of keys (quadratic over a big intake).
        sql`SELECT r.${sql.literal(column)} AS key, r.batch_id, b.file_name, r.idx, r.line, r.state
          FROM rows r INDEXED BY ${sql.literal(column === "row_id" ? "rows_by_row_id" : "rows_by_repeat_key")}
          JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
          WHERE r.account_id = ${accountId} AND r.${sql.literal(column)} IN ${sql.in(chunk)}
            AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected' ${extra}
          ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeMatches))
      )
    ).pipe(Effect.map((found) => found.flat()))

  const existingIds: StoreDriver["existingIds"] = (accountId, ids, excludeBatchId) =>
    matches(accountId, "row_id", ids, excludeBatchId, sql``).pipe(Effect.withSpan("StateStore.existingIds"))

  const recentRepeats: StoreDriver["recentRepeats"] = (accountId, repeatKeys, since, excludeBatchId) => {
    const ms = DateTime.toEpochMillis(since)
    return matches(
      accountId,
      "repeat_key",
      repeatKeys,
      excludeBatchId,
      sql`AND (b.created_at >= ${ms} OR r.intent_at >= ${ms})`
    ).pipe(Effect.withSpan("StateStore.recentRepeats"))
  }

  const events: StoreDriver["events"] = (accountId, batchId, idx) =>
    catchSql(
      sql`SELECT ${sql.literal(EVENT_COLUMNS)} FROM row_events
        WHERE account_id = ${accountId} AND batch_id = ${batchId} ${idx === undefined ? sql`` : sql`AND idx = ${idx}`}
        ORDER BY seq`.pipe(Effect.flatMap(decodeEvents))
    )

  return {
    claimRows,
    claimForResend,
    releaseRows,
    recordTransition,
    recordTransitions,
    getRow: (accountId: string, batchId: string, idx: number) =>
      firstRow(sql`account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${idx}`),
    rowsInStates,
    streamRowsInStates,
    streamRows,
    streamPending,
    earliestIntent,
    findRowByReference: (accountId: string, reference: string) =>
      firstRow(sql`account_id = ${accountId} AND reference = ${reference}`),
    findRowByToken: (accountId: string, token: string) => firstRow(sql`account_id = ${accountId} AND token = ${token}`),
    existingIds,
    recentRepeats,
    events
  } satisfies Partial<StoreDriver>
}
