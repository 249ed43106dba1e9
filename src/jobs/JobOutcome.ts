/** Where a job left its batch file, as the watcher reports it (src/cli/WatchText.ts words it). */
import { Data } from "effect"
import type { BatchId } from "../domain/Ids.ts"

/** Rows per state, as the summary counts them. */
export type Counts = Readonly<Record<string, number>>

export type JobOutcome = Data.TaggedEnum<{
  Done: { readonly file: string; readonly batchId: BatchId; readonly exitCode: number; readonly counts: Counts }
  /** `errors`: the errors file where it ended up (beside the file in rejected/), when there is one. */
  Rejected: { readonly file: string; readonly batchId: BatchId; readonly exitCode: number; readonly outcome: string; readonly counts: Counts; readonly errors?: string }
  Awaiting: {
    readonly file: string
    readonly batchId: BatchId
    /** Why an earlier approval (or request) did not cover this file: said loudly. */
    readonly note?: string
  }
  Held: { readonly batchId: BatchId; readonly reason: string }
  /** Another worker runs the batch (`owner`, its lease's holder) or a batch of the same `currencies` now: looked at again next scan. */
  Busy: { readonly batchId?: BatchId; readonly owner?: string; readonly currencies?: ReadonlyArray<string> }
  Incomplete: { readonly batchId: BatchId; readonly exitCode: number; readonly outcome: string }
  Attention: { readonly file: string; readonly batchId: BatchId; readonly reasons: ReadonlyArray<string> }
}>
export const JobOutcome = Data.taggedEnum<JobOutcome>()
