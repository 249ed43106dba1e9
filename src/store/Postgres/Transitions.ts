/**
 * The conditional, forward-only row move of DESIGN 7 for a group of transitions, inside a write
 * transaction, in a fixed number of round trips whatever the group's size: one statement locks and
 * reads the rows (and checks the fence), the moves are worked out here exactly as the SQLite adapter
 * does them (transitions of one row apply in order, each seeing the one before), and one statement
 * writes every row's final values (by the tuple ids it locked) and every event.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { DateTime, Effect, Schema } from "effect"
import { type Fence, StoreError, type Transition } from "../Model.ts"
import { canMove, isFinal, predecessors, RowState } from "../RowState.ts"
import { intArray, leaseCte } from "./Queries.ts"
import { refuseUnstorable } from "../Storable.ts"

const Current = Schema.Struct({
  /** The tuple id of the row as locked here: the UPDATE below names the rows by it. */
  ctid: Schema.String,
  idx: Schema.Int,
  state: RowState,
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

const decodeCurrent = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(Current))(rows))

interface EventRecord {
  readonly n: number
  readonly idx: number
  readonly at: number
  readonly from_state: RowState
  readonly to_state: RowState
  readonly source: string
  readonly detail: string | null
}

const allowedFrom = (t: Transition): ReadonlyArray<RowState> =>
  t.from === undefined ? predecessors(t.to) : t.from.filter((from) => canMove(from, t.to))

const fenced = (batchId: string, fence: Fence) =>
  new StoreError({ reason: "Fenced", message: `batch ${batchId}: lease ${fence.number} of ${fence.owner} was taken over` })

/**
 * Fencing of a transition: the lease is still this one (no one took it over since). As in SQLite its
 * expiry is not required: a lapsed lease nobody took is still only this writer's, and recording what
 * the service answered is what keeps a later runner from guessing.
 */
export const applyTransitions = (
  sql: SqlClient.SqlClient,
  accountId: string,
  batchId: string,
  transitions: ReadonlyArray<Transition>,
  now: number,
  fence?: Fence
): Effect.Effect<ReadonlyArray<boolean>, StoreError | SqlError> =>
  Effect.gen(function* () {
    yield* refuseUnstorable(transitions)
    const idxs = [...new Set(transitions.map((t) => t.idx))].sort((a, b) => a - b)
    // The lease is share-locked first (the filter runs before any row is read), then the rows in idx
    // order: every writer takes its locks in the same order as claims do, so none waits in a cycle.
    const found = yield* sql`WITH ${leaseCte(sql, accountId, batchId, fence)}
      SELECT ctid, idx, state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at, ended_at
      FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ANY(${intArray(sql, idxs)})
        AND EXISTS (SELECT 1 FROM lease)
      ORDER BY idx FOR UPDATE`.pipe(Effect.flatMap(decodeCurrent))
    // Nothing found: a lease taken over (Fenced) or rows that do not exist (NotFound below).
    if (found.length === 0 && fence !== undefined) {
      const held = yield* sql`WITH ${leaseCte(sql, accountId, batchId, fence)} SELECT 1 AS held FROM lease`
      if (held.length === 0) return yield* fenced(batchId, fence)
    }
    const current = new Map<number, Current>(found.map((row) => [row.idx, row]))
    const events: Array<EventRecord> = []
    /** The rows moved, with the time of their last move (their updated_at). */
    const touched = new Map<number, number>()
    const applied: Array<boolean> = []
    for (const t of transitions) {
      const row = current.get(t.idx)
      if (row === undefined) {
        return yield* new StoreError({ reason: "NotFound", message: `no row ${t.idx} in batch ${batchId}` })
      }
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
      events.push({ n: events.length, idx: t.idx, at, from_state: row.state, to_state: t.to, source: t.source, detail: t.detail ?? null })
      touched.set(t.idx, at)
      applied.push(true)
    }
    if (events.length === 0) return applied
    const finals = [...touched].flatMap(([idx, at]) => {
      const row = current.get(idx)
      return row === undefined ? [] : [{
        ctid: row.ctid, idx, state: row.state, reference: row.reference, fee_minor: row.feeMinor, error: row.error,
        attempts: row.attempts, intent_at: row.intentAt, submitted_at: row.submittedAt, final_at: row.finalAt,
        ended_at: row.endedAt, updated_at: at
      }]
    })
    // The rows are named by the tuple ids the SELECT above locked in this transaction: nobody else
    // can have moved them since, and no index applies, so each row is one TID fetch whatever the
    // statistics say. Joined on the batch's columns and idx instead, the planner read the whole batch
    // (or the whole table, once analyzed) at every write. `r.idx = v.idx` guards the join.
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
        FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS e(n integer, idx integer, at bigint,
          from_state text, to_state text, source text, detail text)
        ORDER BY e.n
      )
      SELECT count(*)::int AS moved FROM moved`
    // Each locked row is written: fewer would mean events logged for moves that did not happen. The
    // transaction then rolls back, and nothing is recorded as applied.
    if (moved !== finals.length) {
      return yield* Effect.dieMessage(`batch ${batchId}: ${finals.length} rows locked for their transitions, ${moved} written`)
    }
    return applied
  })
