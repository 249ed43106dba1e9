/**
 * Claims, releases and transitions of rows: the row state machine of DESIGN 7, worked out once. The
 * dialects differ only in how they lock. SQLite has one writer (BEGIN IMMEDIATE): its statements are
 * plain. PostgreSQL share-locks the batch's lease in the statement itself (fencing, `leaseCte`), picks
 * claimed rows FOR UPDATE SKIP LOCKED so workers take disjoint rows without waiting, and names locked
 * rows by their tuple ids, which keeps every plan a TID fetch whatever the statistics say.
 */
import type { Fragment } from "@effect/sql/Statement"
import { Clock, DateTime, Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { type ClaimSelection, type EventSource, type Fence, StoreError, type Transition } from "../Model.ts"
import { canMove, isFinal, predecessors, type RowState, RowState as RowStateSchema } from "../RowState.ts"
import { refuseUnstorable } from "../Storable.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decoder, decodeRows, type EventInput, insertEvents, ROW_COLUMNS } from "./Columns.ts"
import { type Db, eachPart, oneOf, pgArray, StoreDb } from "./Db.ts"

interface Move {
  readonly from: RowState
  readonly to: RowState
  readonly set: Fragment
  readonly source: EventSource
  readonly detail?: string | undefined
}

/** What a transition reads of a row and writes back; `ctid` names it on PostgreSQL (empty on SQLite). */
const Current = Schema.Struct({
  ctid: Schema.optionalWith(Schema.String, { default: () => "" }),
  idx: Schema.Int,
  state: RowStateSchema,
  reference: Schema.NullOr(Schema.String),
  feeMinor: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  intentAt: Schema.NullOr(Schema.Number),
  submittedAt: Schema.NullOr(Schema.Number),
  finalAt: Schema.NullOr(Schema.Number),
  endedAt: Schema.NullOr(Schema.Number)
})
type Current = typeof Current.Type
const decodeCurrent = decoder(Current)

const CURRENT_COLUMNS = "idx, state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at, ended_at"

const allowedFrom = (t: Transition): ReadonlyArray<RowState> =>
  t.from === undefined ? predecessors(t.to) : t.from.filter((from) => canMove(from, t.to))

const fenced = (batchId: string, fence: Fence) =>
  new StoreError({ reason: "Fenced", message: `batch ${batchId}: lease ${fence.number} of ${fence.owner} was taken over` })

/**
 * A group of transitions applied in memory, in order (each seeing the one before): which applied,
 * each moved row's final values with the time of its last move, and the events to log.
 */
const advance = (batchId: string, found: ReadonlyArray<Current>, transitions: ReadonlyArray<Transition>, now: number) => {
  const current = new Map(found.map((row) => [row.idx, row]))
  const touched = new Map<number, number>()
  const events: Array<Omit<EventInput, "accountId" | "batchId">> = []
  const applied: Array<boolean> = []
  for (const t of transitions) {
    const row = current.get(t.idx)
    if (row === undefined) return new StoreError({ reason: "NotFound", message: `no row ${t.idx} in batch ${batchId}` })
    if (!allowedFrom(t).includes(row.state)) {
      applied.push(false)
      continue
    }
    const at = t.at === undefined ? now : DateTime.toEpochMillis(t.at)
    const reference = row.reference ?? t.reference ?? null
    const resend = t.to === "submitting"
    current.set(t.idx, {
      ...row,
      state: t.to,
      reference,
      feeMinor: t.feeMinor ?? row.feeMinor,
      error: t.error ?? (t.to === "completed" ? null : row.error),
      attempts: resend ? row.attempts + 1 : row.attempts,
      intentAt: resend ? at : row.intentAt,
      submittedAt: row.submittedAt ?? (reference === null ? null : at),
      finalAt: row.finalAt ?? (isFinal(t.to) ? at : null),
      endedAt: t.to === "unknown" ? at : row.endedAt
    })
    events.push({ idx: t.idx, at, from: row.state, to: t.to, source: t.source, detail: t.detail ?? null })
    touched.set(t.idx, at)
    applied.push(true)
  }
  const written = [...touched].flatMap(([idx, updatedAt]) => {
    const row = current.get(idx)
    return row === undefined ? [] : [{ ...row, updatedAt }]
  })
  return { applied, events, written }
}

/** Rows per UPDATE on SQLite: 11 parameters each; powers of two keep the statement texts few (prepared once). */
const GROUP_WRITE = 256
const powerOfTwoChunks = <A>(items: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let at = 0; at < items.length;) {
    let size = GROUP_WRITE
    while (size > items.length - at) size /= 2
    out.push(items.slice(at, at + size))
    at += size
  }
  return out
}

export const makeClaims = (db: Db) => {
  const { sql } = db
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

  /**
   * PostgreSQL's CTE `lease`: the batch's row, share-locked, when `fence` is its lease (unexpired at
   * `now` when given). Writers of one lease run together; a takeover (an UPDATE of the row) waits for
   * them, and they see any takeover committed before them. Without a fence it holds the batch against
   * deleteBatch.
   */
  const leaseCte = (accountId: string, batchId: string, fence: Fence | undefined, now?: Fragment) =>
    sql`lease AS (SELECT lease_owner FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}
      ${fence === undefined ? sql`` : sql`AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}`}
      ${now === undefined ? sql`` : sql`AND lease_expires_at > ${now}`}
      FOR SHARE)`

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
    isPg ? [leaseCte(accountId, batchId, fence, fence === undefined ? undefined : now)] : []

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
        const lease = isPg ? [leaseCte(accountId, batchId, undefined)] : []
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

  /** The rows the transitions name, read for the move (on PostgreSQL locked in idx order after the lease, as claims lock them). */
  const readCurrent = (accountId: string, batchId: string, idxs: ReadonlyArray<number>, fence: Fence | undefined) =>
    isPg
      ? Effect.gen(function* () {
        const found = yield* sql`WITH ${leaseCte(accountId, batchId, fence)}
          SELECT ctid, ${sql.literal(CURRENT_COLUMNS)} FROM rows
          WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ANY(${pgArray(sql, idxs, "int")})
            AND EXISTS (SELECT 1 FROM lease)
          ORDER BY idx FOR UPDATE`.pipe(Effect.flatMap(decodeCurrent))
        // Nothing found: a lease taken over (Fenced) or rows that do not exist (NotFound later).
        if (found.length === 0 && fence !== undefined) {
          const held = yield* sql`WITH ${leaseCte(accountId, batchId, fence)} SELECT 1 AS held FROM lease`
          if (held.length === 0) return yield* fenced(batchId, fence)
        }
        return found
      })
      : Effect.gen(function* () {
        // Fencing of a transition: the lease is still this one. Its expiry is not required: a lapsed lease
        // nobody took is still only this writer's, and recording what the service answered keeps a later runner from guessing.
        if (fence !== undefined) {
          const held = yield* sql`SELECT 1 AS held FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}
            AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}`
          if (held.length === 0) return yield* fenced(batchId, fence)
        }
        return yield* eachPart(oneOf(sql, sql`idx`, idxs, "int"), (where) =>
          sql`SELECT ${sql.literal(CURRENT_COLUMNS)} FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId} AND ${where}`.pipe(
            Effect.flatMap(decodeCurrent)
          ))
      })

  type Written = Current & { readonly updatedAt: number }

  /** Every moved row's final values and every event, in a fixed number of statements. */
  const writeMoves = (accountId: string, batchId: string, written: ReadonlyArray<Written>, events: ReadonlyArray<Omit<EventInput, "accountId" | "batchId">>) =>
    isPg
      ? Effect.gen(function* () {
        const finals = written.map((r) => ({
          ctid: r.ctid, idx: r.idx, state: r.state, reference: r.reference, fee_minor: r.feeMinor, error: r.error, attempts: r.attempts,
          intent_at: r.intentAt, submitted_at: r.submittedAt, final_at: r.finalAt, ended_at: r.endedAt, updated_at: r.updatedAt
        }))
        const logged = events.map((e, n) => ({ n, idx: e.idx, at: e.at, from_state: e.from, to_state: e.to, source: e.source, detail: e.detail }))
        // By the tuple ids locked above: nobody else can have moved these rows since. `r.idx = v.idx` guards the join.
        const [{ moved }] = yield* sql<{ moved: number }>`WITH v AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(finals)}::jsonb) AS v(ctid tid, idx integer, state text,
              reference text, fee_minor bigint, error text, attempts integer, intent_at bigint, submitted_at bigint,
              final_at bigint, ended_at bigint, updated_at bigint)
          ), moved AS (
            UPDATE rows r SET state = v.state, reference = v.reference, fee_minor = v.fee_minor, error = v.error,
              attempts = v.attempts, intent_at = v.intent_at, submitted_at = v.submitted_at, final_at = v.final_at,
              ended_at = v.ended_at, updated_at = v.updated_at
            FROM v WHERE r.ctid = v.ctid AND r.idx = v.idx
            RETURNING r.idx
          ), logged AS (
            INSERT INTO row_events (account_id, batch_id, idx, at, from_state, to_state, source, detail)
            SELECT ${accountId}::text, ${batchId}::text, e.idx, e.at, e.from_state, e.to_state, e.source, e.detail
            FROM jsonb_to_recordset(${JSON.stringify(logged)}::jsonb) AS e(n integer, idx integer, at bigint,
              from_state text, to_state text, source text, detail text)
            ORDER BY e.n
          )
          SELECT count(*)::int AS moved FROM moved`
        // Fewer rows written than locked would log events for moves that did not happen: roll back.
        if (moved !== finals.length) {
          return yield* Effect.dieMessage(`batch ${batchId}: ${finals.length} rows locked for their transitions, ${moved} written`)
        }
      })
      : Effect.gen(function* () {
        for (const chunk of powerOfTwoChunks(written)) {
          yield* sql`WITH v(idx, state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at, ended_at, updated_at) AS (VALUES ${sql.csv(
            chunk.map((r) =>
              sql`(${r.idx}, ${r.state}, ${r.reference}, ${r.feeMinor}, ${r.error}, ${r.attempts}, ${r.intentAt}, ${r.submittedAt}, ${r.finalAt}, ${r.endedAt}, ${r.updatedAt})`
            )
          )})
          UPDATE rows SET state = v.state, reference = v.reference, fee_minor = v.fee_minor, error = v.error,
            attempts = v.attempts, intent_at = v.intent_at, submitted_at = v.submitted_at, final_at = v.final_at,
            ended_at = v.ended_at, updated_at = v.updated_at
          FROM v WHERE rows.account_id = ${accountId} AND rows.batch_id = ${batchId} AND rows.idx = v.idx`
        }
        yield* insertEvents(sql, events.map((e) => ({ accountId, batchId, ...e })))
      })

  /** Conditional, forward-only moves: read the rows, move them in memory, write them back. */
  const applyTransitions = (accountId: string, batchId: string, transitions: ReadonlyArray<Transition>, fence: Fence | undefined) =>
    Effect.gen(function* () {
      yield* refuseUnstorable(transitions)
      const now = yield* Clock.currentTimeMillis
      const idxs = [...new Set(transitions.map((t) => t.idx))].sort((a, b) => a - b)
      const outcome = advance(batchId, yield* readCurrent(accountId, batchId, idxs, fence), transitions, now)
      if (outcome instanceof StoreError) return yield* outcome
      if (outcome.events.length > 0) yield* writeMoves(accountId, batchId, outcome.written, outcome.events)
      return outcome.applied
    })

  // Forward-only and conditional, a group of transitions is safe to write twice: one whose COMMIT was
  // cut off is written again (what it already changed, it does not change again).
  const recordTransitions: StoreDriver["recordTransitions"] = (accountId, batchId, transitions, fence) => {
    const apply = applyTransitions(accountId, batchId, transitions, fence)
    return db.writeOrReadBack(apply, db.write(apply)).pipe(Effect.withSpan("Claims.recordTransitions"))
  }

  const recordTransition: StoreDriver["recordTransition"] = (accountId, batchId, transition, fence) =>
    recordTransitions(accountId, batchId, [transition], fence).pipe(Effect.map((applied) => applied[0] === true))

  return { claimRows, claimForResend, releaseRows, recordTransition, recordTransitions } satisfies Partial<StoreDriver>
}

/** Claims, releases and transitions of rows: the row state machine. */
export class Claims extends Effect.Service<Claims>()("store/Claims", { effect: Effect.map(StoreDb, makeClaims) }) {}
