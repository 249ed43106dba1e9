/** The conditional, forward-only row move of DESIGN 7, run inside a write transaction. */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { DateTime, Effect, Option, Schema } from "effect"
import { StoreError, type Transition } from "../Model.ts"
import { canMove, isFinal, predecessors, ROW_STATES, RowState } from "../RowState.ts"
import { type EventInput, insertEvents } from "./Queries.ts"
import { refuseUnstorable } from "../Storable.ts"

const Current = Schema.Struct({
  state: RowState,
  reference: Schema.NullOr(Schema.String),
  feeMinor: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  intentAt: Schema.NullOr(Schema.Number),
  submittedAt: Schema.NullOr(Schema.Number),
  finalAt: Schema.NullOr(Schema.Number)
})

const decodeCurrent = (rows: ReadonlyArray<unknown>) =>
  Effect.orDie(Schema.decodeUnknown(Schema.Array(Current))(rows))

const allowedFrom = (t: Transition): ReadonlyArray<RowState> =>
  t.from === undefined ? predecessors(t.to) : t.from.filter((from) => canMove(from, t.to))

export const applyTransition = (
  sql: SqlClient.SqlClient,
  accountId: string,
  batchId: string,
  t: Transition,
  now: number
): Effect.Effect<boolean, StoreError | SqlError> =>
  Effect.gen(function* () {
    yield* refuseUnstorable([t])
    const found = yield* sql`SELECT state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at
      FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${t.idx}`.pipe(
      Effect.flatMap(decodeCurrent)
    )
    const current = Option.fromNullable(found[0])
    if (Option.isNone(current)) {
      return yield* new StoreError({ reason: "NotFound", message: `no row ${t.idx} in batch ${batchId}` })
    }
    const row = current.value
    if (!allowedFrom(t).includes(row.state)) return false
    const at = t.at === undefined ? now : DateTime.toEpochMillis(t.at)
    const reference = row.reference ?? t.reference ?? null
    const resend = t.to === "submitting"
    yield* sql`UPDATE rows SET
        state = ${t.to},
        reference = ${reference},
        fee_minor = ${t.feeMinor ?? row.feeMinor},
        error = ${t.error ?? (t.to === "completed" ? null : row.error)},
        attempts = ${resend ? row.attempts + 1 : row.attempts},
        intent_at = ${resend ? at : row.intentAt},
        submitted_at = ${row.submittedAt ?? (reference === null ? null : at)},
        final_at = ${row.finalAt ?? (isFinal(t.to) ? at : null)},
        ended_at = ${t.to === "unknown" ? sql`${at}` : sql`ended_at`},
        updated_at = ${at}
      WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${t.idx}`
    yield* insertEvents(sql, [
      { accountId, batchId, idx: t.idx, at, from: row.state, to: t.to, source: t.source, detail: t.detail ?? null }
    ])
    return true
  })

export const CurrentWithIdx = Schema.Struct({ idx: Schema.Number, ...Current.fields })
type CurrentWithIdx = typeof CurrentWithIdx.Type

const STATES: ReadonlySet<unknown> = new Set(ROW_STATES)
const numberOrNull = (value: unknown) => value === null || typeof value === "number"
const textOrNull = (value: unknown) => value === null || typeof value === "string"
/** The columns the SELECT below reads, each as `CurrentWithIdx` takes it (no other column is read). */
const isCurrentWithIdx = (row: unknown): row is CurrentWithIdx => {
  if (typeof row !== "object" || row === null) return false
  const r = row as Record<string, unknown>
  return typeof r.idx === "number" && STATES.has(r.state) && textOrNull(r.reference) && numberOrNull(r.feeMinor) &&
    textOrNull(r.error) && typeof r.attempts === "number" && numberOrNull(r.intentAt) && numberOrNull(r.submittedAt) &&
    numberOrNull(r.finalAt)
}
/**
 * Checked in plain code first: the schema's decode was the largest allocator of a run's own code (42
 * of 1,129 MB sampled over 4,000 payouts). Any row in doubt sends the whole read to the schema.
 */
export const decodeCurrentWithIdx = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<CurrentWithIdx>> =>
  rows.every(isCurrentWithIdx)
    ? Effect.succeed(rows)
    : Effect.orDie(Schema.decodeUnknown(Schema.Array(CurrentWithIdx))(rows))

const GROUP_READ = 500
/** Rows per UPDATE at most: 11 parameters each, well under SQLite's 32,766. */
const GROUP_WRITE = 256

/**
 * A group cut into UPDATEs of a power of two rows each (largest first): at most nine statement texts,
 * so each is prepared once and then found in the prepared-statement cache, not prepared per group.
 */
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

/** A row's values after the last of its transitions in a group: what its one UPDATE writes. */
interface Written {
  readonly idx: number
  readonly next: typeof Current.Type
  /** The `at` of its last move to `unknown` in the group; null keeps `ended_at` as it is. */
  readonly endedAt: number | null
  readonly updatedAt: number
}

/** One UPDATE for many rows: each row's values joined by `idx` from a VALUES list. */
const updateRows = (sql: SqlClient.SqlClient, accountId: string, batchId: string, rows: ReadonlyArray<Written>) =>
  Effect.forEach(
    powerOfTwoChunks(rows),
    (chunk) =>
      sql`WITH v(idx, state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at, ended_at, updated_at) AS (VALUES ${sql.csv(
        chunk.map(({ idx, next: n, endedAt, updatedAt }) =>
          sql`(${idx}, ${n.state}, ${n.reference}, ${n.feeMinor}, ${n.error}, ${n.attempts}, ${n.intentAt}, ${n.submittedAt}, ${n.finalAt}, ${endedAt}, ${updatedAt})`
        )
      )})
      UPDATE rows SET state = v.state, reference = v.reference, fee_minor = v.fee_minor, error = v.error,
        attempts = v.attempts, intent_at = v.intent_at, submitted_at = v.submitted_at, final_at = v.final_at,
        ended_at = COALESCE(v.ended_at, rows.ended_at), updated_at = v.updated_at
      FROM v WHERE rows.account_id = ${accountId} AND rows.batch_id = ${batchId} AND rows.idx = v.idx`,
    { discard: true }
  )

/**
 * `applyTransition` for many rows at once, with the same result: the rows are read in one query per
 * 500, each row's transitions applied in order in memory (each seeing the one before), and the rows
 * written in a few UPDATEs (at most 256 rows each) and their events in one insert. Statements through @effect/sql cost
 * about 0.1 ms of CPU each, so a group costs a handful rather than one per transition.
 */
export const applyTransitions = (
  sql: SqlClient.SqlClient,
  accountId: string,
  batchId: string,
  transitions: ReadonlyArray<Transition>,
  now: number
): Effect.Effect<ReadonlyArray<boolean>, StoreError | SqlError> =>
  Effect.gen(function* () {
    yield* refuseUnstorable(transitions)
    const idxs = [...new Set(transitions.map((t) => t.idx))]
    const current = new Map<number, typeof Current.Type>()
    for (let i = 0; i < idxs.length; i += GROUP_READ) {
      const found = yield* sql`SELECT idx, state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at
        FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx IN ${sql.in(idxs.slice(i, i + GROUP_READ))}`.pipe(
        Effect.flatMap(decodeCurrentWithIdx)
      )
      for (const { idx, ...row } of found) current.set(idx, row)
    }
    const events: Array<EventInput> = []
    const applied: Array<boolean> = []
    const written = new Map<number, Written>()
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
      const next = {
        state: t.to,
        reference,
        feeMinor: t.feeMinor ?? row.feeMinor,
        error: t.error ?? (t.to === "completed" ? null : row.error),
        attempts: resend ? row.attempts + 1 : row.attempts,
        intentAt: resend ? at : row.intentAt,
        submittedAt: row.submittedAt ?? (reference === null ? null : at),
        finalAt: row.finalAt ?? (isFinal(t.to) ? at : null)
      }
      const before = written.get(t.idx)
      written.set(t.idx, { idx: t.idx, next, endedAt: t.to === "unknown" ? at : (before?.endedAt ?? null), updatedAt: at })
      current.set(t.idx, next)
      events.push({ accountId, batchId, idx: t.idx, at, from: row.state, to: t.to, source: t.source, detail: t.detail ?? null })
      applied.push(true)
    }
    yield* updateRows(sql, accountId, batchId, [...written.values()])
    yield* insertEvents(sql, events)
    return applied
  })
