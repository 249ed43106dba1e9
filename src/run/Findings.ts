/**
 * What `payouts reconcile` finds, as facts: a batch's rows against the service, and the whole
 * account's tokens against its rows. The command line words them (src/cli/ReconcileText.ts), in
 * its report and as `detail` in --json.
 */
import { Data } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import type { ListingGap } from "./ListingGap.ts"

export type BatchFact = Data.TaggedEnum<{
  /** `count` listed payouts carry the row's token. */
  Duplicate: { readonly count: number }
  /** A listed payout carries the row's token but is not the one the ledger records. */
  Unrecorded: { readonly reference: string; readonly recorded: string | null }
  /** The ledger says the service answered, but no payout carries the token. */
  NoPayout: { readonly state: string }
  UnknownToService: { readonly reference: string }
  StatusUnread: { readonly reference: string; readonly message: string }
  /** An answer no payout of ours can have (shown, never added up nor stored). */
  Anomaly: { readonly problem: string }
  Changed: { readonly ledger: string; readonly service: string }
  ListingIncomplete: { readonly day: string; readonly gap: ListingGap }
}>
export const BatchFact = Data.taggedEnum<BatchFact>()

export interface Finding {
  readonly kind: "missing" | "duplicate" | "unrecorded" | "changed" | "unreachable" | "anomaly"
  readonly line: number
  readonly token: string
  readonly fact: BatchFact
  readonly references: ReadonlyArray<string>
}

export type AccountFact = Data.TaggedEnum<{
  Incomplete: { readonly day: string; readonly gap: ListingGap }
  Alarm: { readonly reason: string }
  /** `count` payouts carry a token no row of the account has. */
  Unmatched: { readonly count: number }
  Duplicate: { readonly count: number }
  /** A listed payout's amount or currency differs from its row's. */
  Mismatch: {
    readonly reference: string
    readonly amountMinor: number
    readonly currency: string
    readonly rowAmountMinor: number | null
    readonly rowCurrency: string
  }
  Unrecorded: { readonly reference: string; readonly recorded: string | null; readonly state: string }
}>
export const AccountFact = Data.taggedEnum<AccountFact>()

export interface AccountFinding {
  readonly kind: "duplicate" | "unmatched" | "mismatch" | "unrecorded" | "incomplete" | "alarm"
  readonly token: string
  readonly batchId: BatchId | null
  readonly line: number | null
  readonly fact: AccountFact
  readonly references: ReadonlyArray<string>
}
