/** The row as a transition reads and writes it, and a group of transitions applied to it in memory. */
import { DateTime, Schema } from "effect"
import { StoreError, type Transition } from "../Model.ts"
import { canMove, isFinal, predecessors, type RowState, RowState as RowStateSchema } from "../RowState.ts"
import { decoder, type EventInput } from "./Columns.ts"

/** What a transition reads of a row and writes back; `ctid` names it on PostgreSQL (empty on SQLite). */
export const Current = Schema.Struct({
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
export type Current = typeof Current.Type
export const decodeCurrent = decoder(Current)

export const CURRENT_COLUMNS = "idx, state, reference, fee_minor, error, attempts, intent_at, submitted_at, final_at, ended_at"

const allowedFrom = (t: Transition): ReadonlyArray<RowState> =>
  t.from === undefined ? predecessors(t.to) : t.from.filter((from) => canMove(from, t.to))

/**
 * A group of transitions applied in memory, in order (each seeing the one before): which applied,
 * each moved row's final values with the time of its last move, and the events to log.
 */
export const advance = (batchId: string, found: ReadonlyArray<Current>, transitions: ReadonlyArray<Transition>, now: number) => {
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
