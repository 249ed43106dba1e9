/** The conditional, forward-only row move of DESIGN 7, run inside a write transaction. */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { DateTime, Effect, Option, Schema } from "effect"
import { StoreError, type Transition } from "../Model.js"
import { canMove, isFinal, predecessors, RowState } from "../RowState.js"
import { insertEvents } from "./Queries.js"

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
        updated_at = ${at}
      WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${t.idx}`
    yield* insertEvents(sql, [
      { accountId, batchId, idx: t.idx, at, from: row.state, to: t.to, source: t.source, detail: t.detail ?? null }
    ])
    return true
  })
