/** What an intake gives: a refused file, a batch loaded in the store, or a dry run's checked rows. */
import { Data } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import type { Batch } from "../store/Model.ts"
import type { PendingColumns } from "./PendingColumns.ts"
import type { RowError } from "./RowError.ts"
import type { PhoneFindings } from "./SharedPhones.ts"

export type Intake = Data.TaggedEnum<{
  Refused: { readonly batchId: BatchId; readonly errors: ReadonlyArray<RowError>; readonly rows: number }
  Loaded: {
    readonly batch: Batch
    readonly resumed: boolean
    /** Errors of the rows kept as `rejected` under --skip-invalid. */
    readonly errors: ReadonlyArray<RowError>
    /** Shared phones (SharedPhones.ts), when this intake loaded the file (not on a resume). */
    readonly phones?: PhoneFindings
  }
  /** A dry run of a new file: checked, nothing stored. */
  Checked: {
    readonly batchId: BatchId
    readonly pending: PendingColumns
    readonly rejected: number
    readonly errors: ReadonlyArray<RowError>
    readonly phones?: PhoneFindings
  }
}>
export const Intake = Data.taggedEnum<Intake>()
