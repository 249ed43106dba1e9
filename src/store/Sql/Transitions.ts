/** Transitions of rows: read the rows, move them in memory (CurrentRows.ts), write them back in a few statements. */
import { Clock, Effect } from "effect"
import { type Fence, StoreError, type Transition } from "../Model.ts"
import { refuseUnstorable } from "../Storable.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { type EventInput, insertEvents } from "./Columns.ts"
import { advance, type Current, CURRENT_COLUMNS, decodeCurrent } from "./CurrentRows.ts"
import { type Db, eachPart, isPostgres, oneOf, pgArray } from "./Db.ts"
import { fenced, leaseCte } from "./LeaseLock.ts"

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

export const makeTransitions = (db: Db) => {
  const { sql } = db
  const isPg = isPostgres(sql)

  /** The rows the transitions name, read for the move (on PostgreSQL locked in idx order after the lease, as claims lock them). */
  const readCurrent = (accountId: string, batchId: string, idxs: ReadonlyArray<number>, fence: Fence | undefined) =>
    isPg
      ? Effect.gen(function* () {
        const found = yield* sql`WITH ${leaseCte(sql, accountId, batchId, fence)}
          SELECT ctid, ${sql.literal(CURRENT_COLUMNS)} FROM rows
          WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ANY(${pgArray(sql, idxs, "int")})
            AND EXISTS (SELECT 1 FROM lease)
          ORDER BY idx FOR UPDATE`.pipe(Effect.flatMap(decodeCurrent))
        // Nothing found: a lease taken over (Fenced) or rows that do not exist (NotFound later).
        if (found.length === 0 && fence !== undefined) {
          const held = yield* sql`WITH ${leaseCte(sql, accountId, batchId, fence)} SELECT 1 AS held FROM lease`
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

  return { recordTransition, recordTransitions }
}
