/** The contract of Sql/Mirror.ts: the listing mirror, account and row alarms, intents passed between runners. */
import type { Effect, Option, Stream } from "effect"
import type { Row, StoreError } from "../Model.ts"
import type { AccountAlarm, DayRead, KnownPayout, MirrorDay, MirroredPayout } from "../MirrorModel.ts"
import type { RowState } from "../RowState.ts"
import type { AccountId, BatchId } from "../../domain/Ids.ts"

export interface MirrorDriver {
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
}
