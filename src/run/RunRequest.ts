/** What a run is asked to do, and what it answers. */
import type { Duration, Effect } from "effect"
import { outcomeFor, type Outcome, type RefusalCause } from "./Outcome.ts"
import type { RunSettings } from "./RunContext.ts"
import type { AccountId } from "../domain/Ids.ts"
import type { PhoneFindings } from "../intake/SharedPhones.ts"
import type { PreflightResult } from "./Preflight.ts"

export interface RunRequest {
  readonly accountId: AccountId
  /** What row tokens are minted from (the service's wallet ids); default the account id. */
  readonly tokenScope?: string
  readonly file: string
  readonly outDir?: string
  readonly settings: RunSettings
  readonly skipInvalid: boolean
  readonly allowRepeats: boolean
  /** Accept one phone paid under several names in the file (intake/SharedPhones.ts); default: refused. */
  readonly allowSharedPhone?: boolean
  readonly repeatWindow: Duration.Duration
  readonly listen?: { readonly host: string; readonly port: number; readonly everyInterface?: boolean }
  readonly ledgerEvery: Duration.Duration
  readonly progressEvery: Duration.Duration
  /**
   * The job folder moves the file and its outputs once the run ends (`payouts watch`): the run's
   * messages do not name where they are meanwhile; the watcher names where they end up.
   */
  readonly outputsMoved?: boolean
  /** `payouts validate`: intake and preflight only; the batch is not kept. */
  readonly dryRun: boolean
  /** The state store's file, checked for room before the first payout (none: not checked). */
  readonly statePath?: string
  /** How long outputs that cannot be written are retried at the end before exit 4 (default 2 minutes). */
  readonly outputRetry?: Duration.Duration
  /**
   * Asked once before the first payout with what is about to be paid; false stops the run with
   * nothing paid. Undefined: nothing is asked (`--yes`, no terminal, the sandbox).
   */
  readonly confirm?: (overview: Overview) => Effect.Effect<boolean>
}

/** What is about to be paid: the rows, the preflight's figures, phones other batches paid to other names. */
export interface Overview {
  readonly toPay: number
  readonly preflight: PreflightResult
  readonly phones: PhoneFindings | undefined
}

export interface RunResult {
  /** How the run ended; `exitCode` is `exitCodeOf(outcome)`. */
  readonly outcome: Outcome
  readonly exitCode: number
  readonly summary: Readonly<Record<string, unknown>>
}

/** A result whose outcome is the one its exit code stands for. */
export const resultOf = (exitCode: number, summary: Readonly<Record<string, unknown>>, message: string, cause?: RefusalCause): RunResult => ({
  outcome: outcomeFor(exitCode, message, cause),
  exitCode,
  summary
})
