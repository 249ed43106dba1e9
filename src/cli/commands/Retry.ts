/**
 * `payouts retry BATCH`: a new batch of what a finished batch proved unpaid (its failed, cancelled and
 * expired rows), paid like `payouts run` or dropped in a job folder. Its handler is in
 * ../handlers/Retry.ts (loaded on use).
 */
import { Command, Options } from "@effect/cli"
import { batchArg } from "../JobOptions.ts"
import { batchOptions } from "./Run.ts"

export const retryCommand = Command.make("retry", {
  batch: batchArg,
  jobs: Options.directory("jobs").pipe(
    Options.withDescription("Drop the retry file in this job folder instead of paying it now: the watcher validates, preflights, asks for approval (--require-approval) and pays it."),
    Options.optional
  ),
  args: batchOptions
}).pipe(
  Command.withDescription(
    "Pay again the failed, cancelled and expired rows of a finished batch (never completed, unknown, abandoned or alarmed ones): writes them as a new batch linked to its parent, then pays it like run (same options, confirmation and preflight). A second retry of the same batch resumes that same child; it never pays twice."
  )
)
