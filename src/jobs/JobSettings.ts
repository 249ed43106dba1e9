/** What a job is given: the watcher's settings for its files and the run it calls for one. */
import type { Effect } from "effect"
import type { RunResult } from "../run/RunRequest.ts"
import type { AccountId } from "../domain/Ids.ts"
import type { ApprovalPolicy } from "./Approval.ts"
import type { JobFolder } from "./JobFolder.ts"
import type { FeeRule } from "./Scan.ts"

export type RunFile<E, R> = (file: string, dryRun: boolean) => Effect.Effect<RunResult, E, R>

export interface JobSettings {
  readonly accountId: AccountId
  readonly folder: JobFolder
  readonly requireApproval: boolean
  readonly feePercent: FeeRule
  /** Who may approve (`--approvers`, `--four-eyes`, `--submitted-by`); default: anyone named. */
  readonly approval?: ApprovalPolicy
}
