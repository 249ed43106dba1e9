/**
 * The notes the jobs leave for people, as typed facts: an `.attention.txt` beside a file that needs a
 * person, an approval request's `note` when a file is put up for approval again or an approval of an
 * edited file is refused, and why an approval or a decision is refused (resolve's too, for the
 * console: run/ResolveDecision.ts). The jobs say what happened; the command line words it
 * (src/cli/JobNoteText.ts, provided by `watch`, `approve` and `console`), as it words the watcher's
 * log (WatchEvents.ts).
 */
import { Context, Data } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import type { Applied } from "../run/ResolveDecision.ts"
import type { ResolveRefusal } from "../run/ResolveRefusal.ts"
import type { ServiceTrouble } from "./ServiceProblem.ts"

export type JobNote = Data.TaggedEnum<{
  /** The run ended with rows only a person can settle (exit 5); `reasons`: the account's and each row's alarm. */
  NeedsPerson: { readonly batchId: BatchId; readonly file: string; readonly reasons: ReadonlyArray<string> }
  /** The file changed after the watcher took it; nothing of what it holds now was paid. */
  FileChanged: { readonly batchId: BatchId; readonly file: string; readonly reason: string }
  /** An approval this watcher's policy refuses (an approver it does not allow, or none named). */
  ApprovalRefused: { readonly batchId: BatchId; readonly by: string | undefined; readonly refusal: PolicyRefusal }
  /** The file was edited after its batch was approved. */
  EditedAfterApproval: { readonly file: string; readonly by: string; readonly approvedBatch: string; readonly approvedAt: string | undefined; readonly differs: string }
  /** The file changed while its approved run started. */
  ChangedWhileStarting: { readonly file: string; readonly change: string; readonly approvedBatch: string; readonly by: string }
  /** `payouts approve` (or the console) refused: the file was edited after its batch was put up for approval; `at`: ISO time of the attempt. */
  EditedBeforeApproval: { readonly file: string; readonly requestedBatch: string; readonly differs: string; readonly by: string; readonly at: string }
  /** The file was edited after its batch was put up for approval (`approved`: and approved, by `approvedBy`). */
  EditedAfterRequest: { readonly file: string; readonly previousBatch: string; readonly approved: boolean; readonly approvedBy: string | undefined; readonly batchId: BatchId }
}>

export const JobNote = Data.taggedEnum<JobNote>()

/** Why an approval policy (`--approvers`, `--four-eyes`) refuses a person's approval. */
export type PolicyRefusal = Data.TaggedEnum<{
  NotAnApprover: { readonly by: string; readonly approvers: ReadonlyArray<string> }
  /** Four eyes, and the batch does not say who submitted it. */
  NoSubmitter: {}
  /** Four eyes, and `by` submitted the batch. */
  OwnBatch: { readonly by: string }
  /** The approval a watcher reads names no approver or no approved totals. */
  Unsigned: {}
}>

export const PolicyRefusal = Data.taggedEnum<PolicyRefusal>()

/** Why `approve`, `reject` (or the console's decision) did nothing. */
export type Refusal = Data.TaggedEnum<{
  IdTooShort: { readonly id: string }
  NotWaiting: { readonly id: string; readonly folder: string }
  Ambiguous: { readonly id: string; readonly matches: number }
  /** `flag`'s value is not a person's name (1 to 100 printable characters, no comma). */
  NotAName: { readonly flag: string; readonly text: string }
  Policy: { readonly why: PolicyRefusal }
  /** The file was edited after it was put up for approval: `note` says so (EditedBeforeApproval). */
  Edited: { readonly note: JobNote }
  /** The console's decision came without a reason. */
  NoReason: {}
  /** The console was started without a job folder. */
  NoJobFolder: {}
}>

export const Refusal = Data.taggedEnum<Refusal>()

const raw = (fact: { readonly _tag: string }): string => {
  const { _tag, ...fields } = fact
  return `${_tag} ${JSON.stringify(fields)}`
}

/** Without the command line's wording (a test's watcher), a note or a refusal is its tag and fields. */
export class JobNotes extends Context.Reference<JobNotes>()("jobs/JobNotes", {
  defaultValue: (): {
    readonly text: (note: JobNote) => string
    readonly refusal: (refusal: Refusal) => string
    readonly policyRefusal: (why: PolicyRefusal) => string
    /** Why `payouts resolve` (the console's Attention page) decided nothing. */
    readonly resolveRefusal: (refusal: ResolveRefusal) => string
    /** What a decision did to a row (the Attention page's "Done: ..."). */
    readonly resolveApplied: (applied: Applied) => string
    /** What the service did, for health's `reason` (ServiceProblem.ts). */
    readonly serviceTrouble: (trouble: ServiceTrouble) => string
  } => ({ text: raw, refusal: raw, policyRefusal: raw, resolveRefusal: raw, resolveApplied: (applied) => JSON.stringify(applied), serviceTrouble: raw })
}) {}
