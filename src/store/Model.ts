/** What the state store keeps, declared once: the SQLite adapter decodes its rows with these. */
import { type DateTime, Schema } from "effect"
import { Token } from "../domain/Token.ts"
import { RowState, SETTLED_FAILURE_STATES } from "./RowState.ts"
import { AccountId, BatchId, MinorUnits, Reference } from "../domain/Ids.ts"

export const BatchState = Schema.Literal("loading", "open", "running", "paused", "done")
export type BatchState = typeof BatchState.Type

export const EventSource = Schema.Literal(
  "claim",
  "release",
  "response",
  "poll",
  "webhook",
  "reconcile",
  "preflight",
  "operator",
  "prescan"
)
export type EventSource = typeof EventSource.Type

const Millis = Schema.DateTimeUtcFromNumber
const Details = Schema.Record({ key: Schema.String, value: Schema.String })

export const Batch = Schema.Struct({
  accountId: AccountId,
  batchId: BatchId,
  fileName: Schema.String,
  createdAt: Millis,
  updatedAt: Millis,
  state: BatchState,
  pauseReason: Schema.NullOr(Schema.String),
  leaseOwner: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Millis),
  options: Schema.parseJson(),
  approvedBy: Schema.NullOr(Schema.String),
  approvedAt: Schema.NullOr(Millis),
  /** JSON of what was approved: the batch id (the file's hash) and its totals per currency. */
  approvedWhat: Schema.NullOr(Schema.String)
})
export type Batch = typeof Batch.Type

export const Row = Schema.Struct({
  accountId: AccountId,
  batchId: BatchId,
  idx: Schema.Int,
  line: Schema.Int,
  rowId: Schema.NullOr(Schema.String),
  token: Token,
  repeatKey: Schema.NullOr(Schema.String),
  operator: Schema.String,
  currency: Schema.String,
  /** Null only for a rejected row whose amount did not parse. */
  amountMinor: Schema.NullOr(MinorUnits),
  phone: Schema.String,
  name: Schema.String,
  email: Schema.String,
  /** As validated, without the token: the payout's description is `[token] description`. */
  description: Schema.String,
  details: Schema.parseJson(Details),
  state: RowState,
  reference: Schema.NullOr(Reference),
  feeMinor: Schema.NullOr(MinorUnits),
  attempts: Schema.Int,
  error: Schema.NullOr(Schema.String),
  intentAt: Schema.NullOr(Millis),
  submittedAt: Schema.NullOr(Millis),
  updatedAt: Millis,
  finalAt: Schema.NullOr(Millis),
  /** When the ambiguous POST was known to have ended (the row became `unknown`): the grace counts from here. */
  endedAt: Schema.NullOr(Millis),
  /** Automatic resends so far (at most one, DESIGN 7 rule 6). */
  resends: Schema.Int,
  /** Why a person must decide for this row; null when no alarm. */
  alarm: Schema.NullOr(Schema.String),
  /** References of the payouts that may be this row's, shown with the alarm. */
  candidates: Schema.NullOr(Schema.parseJson(Schema.Array(Schema.String))),
  /** The runner (lease owner) that wrote the current intent; null once it released it cleanly. */
  intentOwner: Schema.NullOr(Schema.String)
})
export type Row = typeof Row.Type

/** Only a person settles it: its outcome is unknown, or an alarm is open on it. A row a run claimed (submitting) is not: running the file again settles it. */
export const needsPerson = (row: Pick<Row, "state" | "alarm">): boolean => row.state === "unknown" || row.alarm !== null

export const RowEvent = Schema.Struct({
  seq: Schema.Int,
  accountId: AccountId,
  batchId: BatchId,
  idx: Schema.Int,
  at: Millis,
  fromState: Schema.NullOr(RowState),
  toState: RowState,
  source: EventSource,
  detail: Schema.NullOr(Schema.String)
})
export type RowEvent = typeof RowEvent.Type

/** A row or id of another batch that a new row collides with (DESIGN 5). */
export const RowMatch = Schema.Struct({
  key: Schema.String,
  batchId: BatchId,
  fileName: Schema.String,
  idx: Schema.Int,
  line: Schema.Int,
  state: RowState
})
export type RowMatch = typeof RowMatch.Type

/** A row of another batch that sent (or may have sent) money to a phone, with the name it went to. */
export const PhoneRecipient = Schema.Struct({
  phone: Schema.String,
  name: Schema.String,
  batchId: BatchId,
  fileName: Schema.String,
  line: Schema.Int
})
export type PhoneRecipient = typeof PhoneRecipient.Type

/**
 * A `payouts retry` batch's link to the batch it pays again (DESIGN 7: the retry generation). One
 * child per parent: a second retry of the same parent finds this link rather than making another.
 */
export const RetryLink = Schema.Struct({
  parentBatchId: BatchId,
  childBatchId: BatchId,
  /** 1 for a retry of a batch that is not itself a retry, 2 for a retry of that retry, ... */
  generation: Schema.Int,
  createdAt: Millis,
  /**
   * A `retry --fix` child (issue 31): it pays again some failed rows, corrected; a parent may have
   * several. The whole retry stays one per parent. Stored 0/1.
   */
  fixes: Schema.optionalWith(Schema.BooleanFromUnknown, { default: () => false })
})
export type RetryLink = typeof RetryLink.Type

/** One row of a retry batch paying again one row of its parent: a parent row is paid again once. */
export const RowRetry = Schema.Struct({
  parentBatchId: BatchId,
  parentIdx: Schema.Int,
  parentLine: Schema.Int,
  childBatchId: BatchId,
  childIdx: Schema.Int,
  childLine: Schema.Int
})
export type RowRetry = typeof RowRetry.Type

/** A retry link with its rows, asked of the store in one transaction. */
export interface RetryRequest {
  readonly link: Omit<RetryLink, "createdAt" | "fixes">
  readonly fixes: boolean
  readonly rows: ReadonlyArray<RowRetry>
}

/**
 * `Linked`: the link in force (the one asked for, or the parent's whole retry, or the child's link to
 * another parent: then no row was linked). `Taken`: rows of the parent another child already pays
 * again; nothing was written.
 */
export type RetryLinked =
  | { readonly _tag: "Linked"; readonly link: RetryLink }
  | { readonly _tag: "Taken"; readonly taken: ReadonlyArray<RowRetry> }

export interface NewBatch {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly fileName: string
  /** JSON-serialisable run options, kept so a resume runs as it started. */
  readonly options?: unknown
}

export interface RowInput {
  readonly idx: number
  /** The row's token, minted at intake (src/domain/Token.ts): the store keeps it as given. */
  readonly token: Token
  readonly line: number
  readonly rowId: string | null
  readonly repeatKey: string | null
  readonly operator: string
  readonly currency: string
  readonly amountMinor: MinorUnits | null
  readonly phone: string
  readonly name: string
  readonly email: string
  readonly description: string
  readonly details?: Readonly<Record<string, string>>
  /** `rejected` keeps an invalid row of a `--skip-invalid` run in the ledger; default `validated`. */
  readonly state?: "validated" | "rejected"
  readonly error?: string | null
}

export interface Transition {
  readonly idx: number
  readonly to: RowState
  /** Apply only from these states (intersected with the states allowed to move to `to`). */
  readonly from?: ReadonlyArray<RowState>
  readonly reference?: Reference
  readonly feeMinor?: MinorUnits
  readonly error?: string
  readonly source: EventSource
  readonly detail?: string
  /** When we learnt it; defaults to the Clock's now. */
  readonly at?: DateTime.Utc
}

/**
 * A held batch lease (DESIGN 7): its owner and its fencing number, which grows with every new lease.
 * Claims and row transitions given a fence apply only while the batch's lease still carries both.
 */
export interface Fence {
  readonly owner: string
  readonly number: number
}

export type ClaimSelection =
  | { readonly idxs: ReadonlyArray<number>; readonly fence?: Fence }
  | {
    readonly limit: number
    readonly currency?: string
    readonly excludeOperators?: ReadonlyArray<string>
    /** Fencing: claim only while this lease is held and unexpired. */
    readonly fence?: Fence
  }

export interface Page {
  readonly afterIdx?: number
  readonly limit?: number
}

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  /** Fenced: the writer no longer holds the batch's lease (another runner took it over). */
  reason: Schema.Literal("Busy", "Unavailable", "NotFound", "Conflict", "Fenced"),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * The parent's rows proven unpaid: a final failure the service reported, no alarm on them, and never
 * resent automatically (the first request of a resent row was only proven absent by the listing, and
 * once the batch is done nobody watches for it any more: a person decides, not a retry).
 */
export const isRetryable = (row: Row): boolean => SETTLED_FAILURE_STATES.includes(row.state) && row.alarm === null && row.resends === 0
