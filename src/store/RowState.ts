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

/** The service's final statuses, which are also row states: its answer settled the payout. */
export const OUTCOME_STATES: ReadonlyArray<RowState> = ["completed", "failed", "cancelled", "expired", "refunded"]

/** Sent and answered with a reference, no final status yet: the tracker polls them. */
export const IN_FLIGHT_STATES: ReadonlyArray<RowState> = ["submitted", "pending", "processing"]

/** Rows whose payout may exist although we hold no reference: they go through reconciliation. */
export const IN_DOUBT_STATES: ReadonlyArray<RowState> = ["submitting", "unknown"]

/** Rows a status answer (poll, webhook) may move: in flight, or unknown and found by reference. */
export const AWAITING_STATUS_STATES: ReadonlyArray<RowState> = [...IN_FLIGHT_STATES, "unknown"]

/** The service answered with a reference: in flight or settled. */
export const ANSWERED_STATES: ReadonlyArray<RowState> = [...IN_FLIGHT_STATES, ...OUTCOME_STATES]

/** What progress counts as submitted: answered, or sent without an answer. */
export const SENT_STATES: ReadonlyArray<RowState> = [...ANSWERED_STATES, "unknown"]

/** The listing's "pending" column: claimed or in flight (unknown rows are shown apart). */
export const PENDING_STATES: ReadonlyArray<RowState> = ["submitting", ...IN_FLIGHT_STATES]

/** Claimed or sent, without a final status: what may be stuck. */
export const OPEN_STATES: ReadonlyArray<RowState> = [...PENDING_STATES, "unknown"]

/** Rows whose payout was sent or may have been, and was not returned: they count against the guards' caps. */
export const MAY_HAVE_PAID_STATES: ReadonlyArray<RowState> = ["submitting", ...IN_FLIGHT_STATES, "completed", "unknown"]

/** The payout went through (a refund came later): the service charged its fee. */
export const PAID_OUT_STATES: ReadonlyArray<RowState> = ["completed", "refunded"]

/** Settled without the money moving: what the stop rule and the breaker count as failures. */
export const SETTLED_FAILURE_STATES: ReadonlyArray<RowState> = ["failed", "cancelled", "expired"]

/** Settled without the person keeping the money. */
export const UNPAID_OUTCOME_STATES: ReadonlyArray<RowState> = [...SETTLED_FAILURE_STATES, "refunded"]

/** Never sent and never will be: refused at intake, or skipped (balance, stop rule, guard). */
export const DROPPED_STATES: ReadonlyArray<RowState> = ["rejected", "skipped"]

/** No request was ever made for these rows: they moved no money. */
export const NOT_SENT_STATES: ReadonlyArray<RowState> = ["validated", ...DROPPED_STATES]

/** Final, and not paid: a run that ends with any of these finished with failures. */
export const FINAL_UNPAID_STATES: ReadonlyArray<RowState> = FINAL_ROW_STATES.filter((state) => state !== "completed")

/** The service's statuses (api/Schemas TransactionStatus), each of which is a row state of the same name. */
const STATUS_STATES: ReadonlyArray<RowState> = ["pending", "processing", ...OUTCOME_STATES]

/** The row state a status string from the service maps to; an unfamiliar one still means "sent". */
export const stateOfStatus = (status: string): RowState => STATUS_STATES.find((state) => state === status) ?? "submitted"

const NEXT: { readonly [S in RowState]: ReadonlyArray<RowState> } = {
  // validated -> a payout's state: the pre-scan found the row already paid (a lost or second store).
  validated: ["submitting", "rejected", "skipped", "submitted", "pending", "processing", ...OUTCOME_STATES],
  submitting: ["submitted", "pending", "processing", ...OUTCOME_STATES, "unknown", "rejected", "skipped"],
  submitted: ["pending", "processing", ...OUTCOME_STATES],
  pending: ["processing", ...OUTCOME_STATES],
  processing: OUTCOME_STATES,
  // abandoned: a person declared the payout not made (payouts resolve); never retried automatically.
  // unknown -> validated only through releaseRows by the runner that wrote the intent and knows it
  // never sent it (a stalled runner waking up after another took its batch over).
  unknown: ["submitting", "submitted", "pending", "processing", ...OUTCOME_STATES, "abandoned"],
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
