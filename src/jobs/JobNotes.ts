/**
 * The notes the jobs leave for people, as typed facts: an `.attention.txt` beside a file that needs a
 * person, and an approval request's `note` when a file is put up for approval again or an approval
 * of an edited file is refused. The jobs say what happened; the command line words it
 * (src/cli/JobNoteText.ts, provided by `watch`, `approve` and `console`), as it words the watcher's
 * log (WatchEvents.ts).
 */
import { Context, Data } from "effect"
import type { BatchId } from "../domain/Ids.ts"

export type JobNote = Data.TaggedEnum<{
  /** The run ended with rows only a person can settle (exit 5); `reasons`: the account's and each row's alarm. */
  NeedsPerson: { readonly batchId: BatchId; readonly file: string; readonly reasons: ReadonlyArray<string> }
  /** The file changed after the watcher took it; nothing of what it holds now was paid. */
  FileChanged: { readonly batchId: BatchId; readonly file: string; readonly reason: string }
  /** An approval this watcher's policy refuses (an approver it does not allow, or none named). */
  ApprovalRefused: { readonly batchId: BatchId; readonly by: string | undefined; readonly refusal: string }
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

/** Without the command line's wording (a test's watcher), a note is its tag and fields. */
export class JobNotes extends Context.Reference<JobNotes>()("jobs/JobNotes", {
  defaultValue: () => ({
    text: (note: JobNote): string => {
      const { _tag, ...fields } = note
      return `${_tag} ${JSON.stringify(fields)}`
    }
  })
}) {}
