/** The contract of Sql/Reads.ts: reading rows and their events, and the account's ids, repeats and phones. */
import type { DateTime, Effect, Option, Stream } from "effect"
import type { Page, PhoneRecipient, Row, RowEvent, RowMatch, StoreError } from "../Model.ts"
import type { RowState } from "../RowState.ts"
import type { AccountId, BatchId } from "../../domain/Ids.ts"

export interface PendingAmount {
  readonly idx: number
  readonly currency: string
  readonly amountMinor: number
}

export interface RowsDriver {
  readonly getRow: (accountId: AccountId, batchId: BatchId, idx: number) => Effect.Effect<Option.Option<Row>, StoreError>
  /** One page of rows in `states`, ordered by idx; page on with `afterIdx` = the last idx seen. */
  readonly rowsInStates: (
    accountId: AccountId,
    batchId: BatchId,
    states: ReadonlyArray<RowState>,
    page?: Page
  ) => Effect.Effect<ReadonlyArray<Row>, StoreError>
  readonly streamRowsInStates: (
    accountId: AccountId,
    batchId: BatchId,
    states: ReadonlyArray<RowState>,
    pageSize?: number
  ) => Stream.Stream<Row, StoreError>
  /** Every row in file order, paged by idx (the ledger). */
  readonly streamRows: (accountId: AccountId, batchId: BatchId, pageSize?: number) => Stream.Stream<Row, StoreError>
  /** (idx, currency, amount) of the rows still `validated`, in file order (the balance preflight). */
  readonly streamPending: (accountId: AccountId, batchId: BatchId) => Stream.Stream<PendingAmount, StoreError>
  /** Earliest intent among submitting and unknown rows (the reconciliation scan's from_date). */
  readonly earliestIntent: (
    accountId: AccountId,
    batchId: BatchId
  ) => Effect.Effect<Option.Option<DateTime.Utc>, StoreError>
  readonly findRowByReference: (accountId: AccountId, reference: string) => Effect.Effect<Option.Option<Row>, StoreError>
  readonly findRowByToken: (accountId: AccountId, token: string) => Effect.Effect<Option.Option<Row>, StoreError>

  /**
   * Rows of other batches of the account with one of these merchant ids (rejected rows excluded),
   * compared in canonical form (`canonicalId`): each match's `key` is that form.
   */
  readonly existingIds: (
    accountId: AccountId,
    ids: ReadonlyArray<string>,
    excludeBatchId: string
  ) => Effect.Effect<ReadonlyArray<RowMatch>, StoreError>
  /** Rows of other batches with one of these repeat keys, created or claimed since `since`. */
  readonly recentRepeats: (
    accountId: AccountId,
    repeatKeys: ReadonlyArray<string>,
    since: DateTime.Utc,
    excludeBatchId: string
  ) => Effect.Effect<ReadonlyArray<RowMatch>, StoreError>

  /**
   * Rows of other batches that sent or may have sent a payout (claimed, not rejected) to one of these
   * phones (E.164), with their names: one phone, one recipient against history (SharedPhones.ts).
   */
  readonly phoneRecipients: (
    accountId: AccountId,
    phones: ReadonlyArray<string>,
    excludeBatchId: string
  ) => Effect.Effect<ReadonlyArray<PhoneRecipient>, StoreError>

  /** Events in the order recorded (`at` is when the change was learnt); of one row when `idx` is given. */
  readonly events: (
    accountId: AccountId,
    batchId: BatchId,
    idx?: number
  ) => Effect.Effect<ReadonlyArray<RowEvent>, StoreError>
}
