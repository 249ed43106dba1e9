/** The contract of Sql/Account.ts: the account's halt, approvals and sent figures for the guards. */
import type { Effect, Option } from "effect"
import type { StoreError } from "../Model.ts"
import type { Approval, Halt, PhoneCount, SentTotal } from "../AccountModel.ts"
import type { AccountId, BatchId } from "../../domain/Ids.ts"

export interface AccountDriver {
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
