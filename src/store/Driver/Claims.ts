/** The contract of Sql/Claims.ts: claims, releases and transitions of rows (DESIGN 7). */
import type { Effect } from "effect"
import type { ClaimSelection, Fence, Row, StoreError, Transition } from "../Model.ts"
import type { AccountId, BatchId } from "../../domain/Ids.ts"

export interface ClaimsDriver {
  /**
   * The durable intent: validated -> submitting (attempts + 1, intent_at = now) for the rows still
   * validated, in one transaction. Returns the rows claimed, by idx.
   */
  readonly claimRows: (
    accountId: AccountId,
    batchId: BatchId,
    selection: ClaimSelection
  ) => Effect.Effect<ReadonlyArray<Row>, StoreError>
  /**
   * The intent of a resend after reconciliation found nothing: unknown -> submitting (attempts + 1,
   * intent_at = now) for the rows still unknown, in one transaction.
   */
  readonly claimForResend: (
    accountId: AccountId,
    batchId: BatchId,
    idxs: ReadonlyArray<number>,
    detail?: string,
    /** Fencing: claim only while this lease is held and unexpired. */
    fence?: Fence
  ) => Effect.Effect<ReadonlyArray<Row>, StoreError>
  /**
   * submitting -> validated, only for rows whose POST was provably never sent. With `owner`, also
   * unknown -> validated for rows whose intent that owner wrote (it knows it never sent them).
   */
  readonly releaseRows: (
    accountId: AccountId,
    batchId: BatchId,
    idxs: ReadonlyArray<number>,
    detail?: string,
    owner?: string
  ) => Effect.Effect<ReadonlyArray<number>, StoreError>
  /**
   * Conditional forward move plus its event; false when not applied. NotFound for a missing row.
   * With a fence, Fenced (nothing written) unless that lease is still the batch's.
   */
  readonly recordTransition: (
    accountId: AccountId,
    batchId: BatchId,
    transition: Transition,
    fence?: Fence
  ) => Effect.Effect<boolean, StoreError>
  /** Many transitions in one transaction; one boolean per transition, in order. Fenced as above. */
  readonly recordTransitions: (
    accountId: AccountId,
    batchId: BatchId,
    transitions: ReadonlyArray<Transition>,
    fence?: Fence
  ) => Effect.Effect<ReadonlyArray<boolean>, StoreError>
}
