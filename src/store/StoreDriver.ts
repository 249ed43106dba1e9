/**
 * Every operation of the state store (DESIGN 7), flat and scoped by account and batch ids: the
 * contract the narrow services of Sql/ implement once for both dialects, and the contract suite in
 * test/store checks on each.
 */
import type { DateTime, Duration, Effect, Option, Stream } from "effect"
import type {
  Batch,
  BatchState,
  ClaimSelection,
  Fence,
  NewBatch,
  Page,
  PhoneRecipient,
  RetryLink,
  RetryLinked,
  RetryRequest,
  Row,
  RowRetry,
  RowEvent,
  RowInput,
  RowMatch,
  StoreError,
  Transition
} from "./Model.ts"
import type { Approval, Halt, PhoneCount, SentTotal } from "./AccountModel.ts"
import type { AccountAlarm, DayRead, KnownPayout, MirrorDay, MirroredPayout } from "./MirrorModel.ts"
import type { RowState, StateCounts } from "./RowState.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export interface CurrencyTotal {
  readonly currency: string
  readonly rows: number
  readonly amountMinor: number
  readonly completedMinor: number
  readonly feesMinor: number
  /** Each distinct amount of the currency's rows with how many rows have it: for per-row estimates. */
  readonly amounts: ReadonlyArray<readonly [amountMinor: number, rows: number]>
}

export interface PendingAmount {
  readonly idx: number
  readonly currency: string
  readonly amountMinor: number
}

export interface Register {
  readonly name: string
  readonly value: string
  readonly updatedAt: number
}

export interface RegisterRead {
  readonly nowMs: number
  readonly registers: ReadonlyArray<Register>
}

export interface BatchSummary extends Batch {
  readonly counts: StateCounts
  readonly total: number
}

export interface StoreDriver {
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
  readonly countByState: (accountId: AccountId, batchId: BatchId) => Effect.Effect<StateCounts, StoreError>
  /** Per currency (in order of first row), the batch's rows sent or maybe sent: not validated, rejected or skipped. */
  readonly currencyTotals: (accountId: AccountId, batchId: BatchId) => Effect.Effect<ReadonlyArray<CurrencyTotal>, StoreError>
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

  // The listing mirror (DESIGN 7): GET /wallet/transactions?type=payout kept by UTC day.
  /** What the store knows of these days' reads (days never read are absent). */
  readonly mirrorDays: (accountId: AccountId, days: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<MirrorDay>, StoreError>
  /**
   * Keeps complete reads of days, all in one transaction; a day closes when its read says `closeIfSame`
   * and it matches the day's last read.
   */
  readonly saveDayReads: (accountId: AccountId, reads: ReadonlyArray<DayRead>) => Effect.Effect<void, StoreError>
  readonly mirrorByTokens: (accountId: AccountId, tokens: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<MirroredPayout>, StoreError>
  /**
   * The rows of a batch in `state` whose token a mirrored payout carries (idx, in file order): the
   * pre-scan's candidates, found by the store's index rather than by reading every row.
   */
  readonly listedRows: (accountId: AccountId, batchId: BatchId, state: RowState) => Effect.Effect<ReadonlyArray<number>, StoreError>
  readonly mirrorByReferences: (
    accountId: AccountId,
    references: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<MirroredPayout>, StoreError>
  /** Every mirrored payout of these days (inclusive, YYYY-MM-DD). */
  readonly mirrorOfDays: (accountId: AccountId, fromDay: string, toDay: string) => Stream.Stream<MirroredPayout, StoreError>
  /** Payouts of the account whose reference reached us since `since` (epoch ms), with when the mirror listed them. */
  readonly knownPayouts: (accountId: AccountId, since: number) => Effect.Effect<ReadonlyArray<KnownPayout>, StoreError>

  /** The open account alarm (the listing cannot prove absence), if any. */
  readonly accountAlarm: (accountId: AccountId) => Effect.Effect<Option.Option<AccountAlarm>, StoreError>
  readonly raiseAccountAlarm: (accountId: AccountId, reason: string, at: number) => Effect.Effect<void, StoreError>
  /** Clears every open account alarm; returns how many. */
  readonly clearAccountAlarm: (accountId: AccountId, by: string, why: string, at: number) => Effect.Effect<number, StoreError>
  /** Sets (or with null clears) a row's alarm and the references that may be its payout. */
  readonly setRowAlarm: (
    accountId: AccountId,
    batchId: BatchId,
    idx: number,
    alarm: string | null,
    candidates: ReadonlyArray<string>
  ) => Effect.Effect<void, StoreError>
  /** Rows of the batch under alarm or already resent automatically (watched for a second payout). */
  readonly flaggedRows: (accountId: AccountId, batchId: BatchId) => Effect.Effect<ReadonlyArray<Row>, StoreError>
  /** A runner leaving cleanly: its ended, unknown intents no longer need its word (rule 5). */
  readonly releaseIntents: (accountId: AccountId, batchId: BatchId, owner: string) => Effect.Effect<void, StoreError>
  /** Intents of an owner proven dead pass to the runner that took the batch over. */
  readonly adoptIntents: (accountId: AccountId, batchId: BatchId, from: string, to: string) => Effect.Effect<void, StoreError>

  /**
   * An account's small shared values (the request budget, currency locks, worker heartbeats), changed
   * atomically across every process sharing the store: `change` gets the value (none when absent) and
   * the store's clock (epoch ms; the database's on PostgreSQL) and returns its answer and the new value
   * (none deletes). `change` must be pure: a retried transaction runs it again.
   */
  readonly modifyRegister: <A>(
    accountId: AccountId,
    name: string,
    change: (value: Option.Option<string>, nowMs: number) => readonly [A, Option.Option<string>]
  ) => Effect.Effect<A, StoreError>
  /** The account's registers whose name starts with `prefix`, with the store's clock when read. */
  readonly registers: (accountId: AccountId, prefix: string) => Effect.Effect<RegisterRead, StoreError>

  /**
   * Links a retry batch to its parent, once per parent and once per child, atomically across every
   * process sharing the store. Answers the link in force: the one given when it was free, else the
   * parent's existing link (or the child's, when the child is already another batch's retry).
   */
  readonly linkRetry: (accountId: AccountId, link: Omit<RetryLink, "createdAt" | "fixes">) => Effect.Effect<RetryLink, StoreError>
  /** Every retry link of the account, oldest first (few: one per `payouts retry`). */
  readonly retryLinks: (accountId: AccountId) => Effect.Effect<ReadonlyArray<RetryLink>, StoreError>
  /**
   * Links a retry batch (whole, one per parent; or a `--fix` child, several per parent) and each of its
   * rows to the parent row it pays again, in one transaction: a parent row is paid again by one child
   * only, across every process sharing the store (`Taken` names the rows another child holds).
   */
  readonly linkRetryRows: (accountId: AccountId, request: RetryRequest) => Effect.Effect<RetryLinked, StoreError>
  /** The row links where the batch is the parent or the child (few: its rows paid again, or paying again). */
  readonly rowRetries: (accountId: AccountId, batchId: BatchId) => Effect.Effect<ReadonlyArray<RowRetry>, StoreError>

  /** The account's halt in force, if any (DESIGN 11: no new payout leaves while it holds). */
  readonly activeHalt: (accountId: AccountId) => Effect.Effect<Option.Option<Halt>, StoreError>
  /** Halts the account; false when a halt is already in force (kept as it was). */
  readonly haltAccount: (accountId: AccountId, halt: Halt) => Effect.Effect<boolean, StoreError>
  /** Lifts the halt in force, with why when given; returns how many were lifted (0 when none held). */
  readonly liftHalt: (accountId: AccountId, by: string, at: number, reason?: string) => Effect.Effect<number, StoreError>
  /** Records who approved the batch, when, and what (its hash and totals). NotFound for a missing batch. */
  readonly recordApproval: (accountId: AccountId, batchId: BatchId, approval: Approval) => Effect.Effect<void, StoreError>
  /** Per currency, what the account's rows sent (or may have) since `since` (epoch ms), every batch. */
  readonly sentTotalsSince: (accountId: AccountId, since: number) => Effect.Effect<ReadonlyArray<SentTotal>, StoreError>
  /** Per phone (E.164, as stored), the account's payouts sent (or maybe sent) to it since `since`. */
  readonly phonePayoutsSince: (
    accountId: AccountId,
    phones: ReadonlyArray<string>,
    since: number
  ) => Effect.Effect<ReadonlyArray<PhoneCount>, StoreError>
}
