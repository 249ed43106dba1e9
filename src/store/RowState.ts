/**
 * Row lifecycle (DESIGN 7). The graph only moves forward: a final row never changes again, except
 * completed -> refunded; a row whose POST may have reached the service never returns to validated.
 */
import { Schema } from "effect"

export const ROW_STATES = [
  "validated",
  "submitting",
  "submitted",
  "pending",
  "processing",
  "completed",
  "failed",
  "cancelled",
  "expired",
  "refunded",
  "rejected",
  "skipped",
  "unknown",
  "abandoned"
] as const

export const RowState = Schema.Literal(...ROW_STATES)
export type RowState = typeof RowState.Type

export const FINAL_ROW_STATES: ReadonlyArray<RowState> = [
  "completed",
  "failed",
  "cancelled",
  "expired",
  "refunded",
  "rejected",
  "skipped",
  "abandoned"
]

/** Rows whose payout may exist although we hold no reference: they go through reconciliation. */
export const IN_DOUBT_STATES: ReadonlyArray<RowState> = ["submitting", "unknown"]

const OUTCOMES: ReadonlyArray<RowState> = ["completed", "failed", "cancelled", "expired", "refunded"]

const NEXT: { readonly [S in RowState]: ReadonlyArray<RowState> } = {
  // validated -> a payout's state: the pre-scan found the row already paid (a lost or second store).
  validated: ["submitting", "rejected", "skipped", "submitted", "pending", "processing", ...OUTCOMES],
  submitting: ["submitted", "pending", "processing", ...OUTCOMES, "unknown", "rejected", "skipped"],
  submitted: ["pending", "processing", ...OUTCOMES],
  pending: ["processing", ...OUTCOMES],
  processing: OUTCOMES,
  // abandoned: a person declared the payout not made (payouts resolve); never retried automatically.
  // unknown -> validated only through releaseRows by the runner that wrote the intent and knows it
  // never sent it (a stalled runner waking up after another took its batch over).
  unknown: ["submitting", "submitted", "pending", "processing", ...OUTCOMES, "abandoned"],
  completed: ["refunded"],
  failed: [],
  cancelled: [],
  expired: [],
  refunded: [],
  rejected: [],
  skipped: [],
  abandoned: []
}

export const isFinal = (state: RowState): boolean => FINAL_ROW_STATES.includes(state)

export const canMove = (from: RowState, to: RowState): boolean => NEXT[from].includes(to)

/** The states a row may be in for a move to `to` to apply. */
export const predecessors = (to: RowState): ReadonlyArray<RowState> =>
  ROW_STATES.filter((from) => canMove(from, to))

export type StateCounts = { readonly [S in RowState]: number }

export const emptyCounts = (): { [S in RowState]: number } =>
  Object.fromEntries(ROW_STATES.map((state) => [state, 0])) as { [S in RowState]: number }
