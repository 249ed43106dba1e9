/** The contract of Sql/Batches.ts: batches, their state, the fenced lease, and their counts and totals. */
import type { Duration, Effect, Option, Stream } from "effect"
import type { Batch, BatchState, Fence, NewBatch, RowInput, StoreError } from "../Model.ts"
import type { StateCounts } from "../RowState.ts"
import type { AccountId, BatchId } from "../../domain/Ids.ts"

export interface CurrencyTotal {
  readonly currency: string
  readonly rows: number
  readonly amountMinor: number
  readonly completedMinor: number
  readonly feesMinor: number
  /** Each distinct amount of the currency's rows with how many rows have it: for per-row estimates. */
  readonly amounts: ReadonlyArray<readonly [amountMinor: number, rows: number]>
}

export interface BatchSummary extends Batch {
  readonly counts: StateCounts
  readonly total: number
}

export interface BatchesDriver {
  /** Idempotent: an existing batch is returned unchanged and `rows` is not read (resume). */
  readonly createBatch: <E = never, R = never>(
    batch: NewBatch,
    rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>
  ) => Effect.Effect<Batch, StoreError | E, R>
  readonly getBatch: (accountId: AccountId, batchId: BatchId) => Effect.Effect<Option.Option<Batch>, StoreError>
  readonly listBatches: (accountId: AccountId) => Effect.Effect<ReadonlyArray<BatchSummary>, StoreError>
  /**
   * Forgets a batch that never sent anything (a refused file, a dry run). Refused with Conflict once
   * any row has held an intent: the store must remember every payout that may exist.
   */
  readonly deleteBatch: (accountId: AccountId, batchId: BatchId) => Effect.Effect<void, StoreError>
  readonly setBatchState: (
    accountId: AccountId,
    batchId: BatchId,
    state: BatchState,
    pauseReason?: string | null
  ) => Effect.Effect<void, StoreError>

  /**
   * The lease's fence when `owner` now holds it (it was free, expired, or already `owner`'s); none
   * when another owner holds it. Every new lease gets a greater fencing number than the last.
   */
  readonly acquireLease: (
    accountId: AccountId,
    batchId: BatchId,
    owner: string,
    ttl: Duration.DurationInput
  ) => Effect.Effect<Option.Option<Fence>, StoreError>
  /** False when the lease was taken over: the runner must stop. */
  readonly renewLease: (
    accountId: AccountId,
    batchId: BatchId,
    fence: Fence,
    ttl: Duration.DurationInput
  ) => Effect.Effect<boolean, StoreError>
  readonly releaseLease: (accountId: AccountId, batchId: BatchId, owner: string) => Effect.Effect<void, StoreError>
  readonly countByState: (accountId: AccountId, batchId: BatchId) => Effect.Effect<StateCounts, StoreError>
  /** Per currency (in order of first row), the batch's rows sent or maybe sent: not validated, rejected or skipped. */
  readonly currencyTotals: (accountId: AccountId, batchId: BatchId) => Effect.Effect<ReadonlyArray<CurrencyTotal>, StoreError>
}
