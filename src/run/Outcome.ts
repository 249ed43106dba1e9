/**
 * How a run ended, as a tagged value: what the exit code (DESIGN 9) and the job folder (`watch`)
 * decide from, instead of the words of the summary's `outcome`.
 */
import { Data } from "effect"
import { EXIT_ATTENTION, EXIT_FINISHED_WITH_FAILURES, EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED } from "./ExitCode.ts"

/** Why nothing was paid: the file is wrong, the wallet cannot cover it, the service could not be used, or a person said no. */
export type RefusalCause = "invalid-file" | "balance" | "service" | "declined"

/**
 * Why rows are left (exit 3): an account halt, a pause (stop rule, breaker, a hold, `payouts pause`),
 * a person who said no on a batch already started, Ctrl-C, a stop (the lease lost, credentials
 * refused), or rows still in flight or unknown waiting for their evidence.
 */
export type IncompleteReason = "halted" | "paused" | "declined" | "interrupted" | "stopped" | "waiting"

export type Outcome = Data.TaggedEnum<{
  /** Nothing was paid (exit 2). */
  Refused: { readonly cause: RefusalCause; readonly message: string }
  /** Every row final (exit 0 when all completed, else 1). */
  Finished: { readonly allCompleted: boolean }
  /** Rows left to do, or another runner holds the batch: run again (exit 3). */
  Incomplete: { readonly message: string; readonly reason?: IncompleteReason }
  /** A person must decide (exit 5): payouts resolve. */
  Attention: { readonly message: string }
  /** The machine failed the run: outputs or the store could not be used (exit 4). */
  Failed: { readonly message: string }
}>

export const Outcome = Data.taggedEnum<Outcome>()

export const exitCodeOf = (outcome: Outcome): number =>
  Outcome.$match(outcome, {
    Refused: () => EXIT_REFUSED,
    Finished: ({ allCompleted }) => (allCompleted ? EXIT_OK : EXIT_FINISHED_WITH_FAILURES),
    Incomplete: () => EXIT_INCOMPLETE,
    Attention: () => EXIT_ATTENTION,
    Failed: () => EXIT_INTERNAL
  })

/** The outcome an exit code stands for; `cause` says why a refusal refused, `reason` why rows are left. */
export const outcomeFor = (exitCode: number, message: string, cause: RefusalCause = "invalid-file", reason?: IncompleteReason): Outcome => {
  switch (exitCode) {
    case EXIT_OK:
      return Outcome.Finished({ allCompleted: true })
    case EXIT_FINISHED_WITH_FAILURES:
      return Outcome.Finished({ allCompleted: false })
    case EXIT_REFUSED:
      return Outcome.Refused({ cause, message })
    case EXIT_ATTENTION:
      return Outcome.Attention({ message })
    case EXIT_INTERNAL:
      return Outcome.Failed({ message })
    default:
      return Outcome.Incomplete(reason === undefined ? { message } : { message, reason })
  }
}
