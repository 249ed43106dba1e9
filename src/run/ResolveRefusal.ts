/**
 * Why `payouts resolve` (or the console's decision) decides nothing, as typed facts: the whole
 * decision's refusals and each row's. The command line words them (src/cli/ResolveText.ts).
 */
import { Data } from "effect"
import type { BatchId } from "../domain/Ids.ts"

/** Why a decision does not fit one row, as a typed fact the command line words (src/cli/ResolveText.ts). */
export type RowRefusal = Data.TaggedEnum<{
  /** Adopt, Resend and Abandon take only an unknown row. */
  NotUnknown: { readonly line: number; readonly state: string; readonly decision: "Adopt" | "Resend" | "Abandon" }
  NoAlarm: { readonly line: number }
  /** A resend while the account is halted (`by`, `reason`: the halt's). */
  Halted: { readonly line: number; readonly by: string; readonly reason: string }
  /** A resend while listed payouts (`references`) carry the row's token. */
  Carried: { readonly line: number; readonly references: ReadonlyArray<string> }
  /** A resend while an account alarm says the listing cannot prove absence. */
  AccountAlarm: { readonly line: number; readonly alarm: string }
  /** A resend while the listing of `days` could not be read completely. */
  UnreadDays: { readonly line: number; readonly days: ReadonlyArray<string> }
}>

export const RowRefusal = Data.taggedEnum<RowRefusal>()

/** Why `payouts resolve` (or the console's decision) decided nothing, as a typed fact (words: src/cli/ResolveText.ts). */
export type ResolveRefusal = Data.TaggedEnum<{
  /** Another process holds the batch's lease. */
  Busy: { readonly batchId: BatchId }
  /** The lease was taken midway: no further row of the decision may be touched. */
  LeaseLost: { readonly batchId: BatchId }
  NoneUnknown: { readonly batchId: BatchId }
  /** `span`: the batch's first and last line; undefined when it has no rows. */
  NoSuchLines: { readonly batchId: BatchId; readonly missing: ReadonlyArray<number>; readonly span: readonly [number, number] | undefined }
  NoRowsNamed: {}
  AdoptOneRow: {}
  /** Rows named that need no person, each with why the decision does not fit it (undefined: its state says why). */
  NeedsNoPerson: { readonly rows: ReadonlyArray<{ readonly line: number; readonly state: string; readonly unfit: RowRefusal | undefined }> }
  /** The decision does not fit these rows: checked whole, nothing done. */
  Unfit: { readonly rows: ReadonlyArray<RowRefusal> }
  /** The status of `reference` could not be read: `error` is the client's. */
  StatusUnread: { readonly reference: string; readonly error: string }
  /** The service's record of `reference` (its currency scrubbed) is not this row's payout. */
  NotThisPayout: { readonly reference: string; readonly type: string; readonly amount: number; readonly currency: string }
  /** The record is implausible: `problem` as the check says it. */
  Implausible: { readonly reference: string; readonly problem: string }
  TakenByAnother: { readonly reference: string; readonly line: number; readonly batchId: BatchId }
  ChangedMeanwhile: { readonly line: number }
}>

export const ResolveRefusal = Data.taggedEnum<ResolveRefusal>()

export class ResolveError extends Data.TaggedError("ResolveError")<{ readonly refusal: ResolveRefusal }> {}
