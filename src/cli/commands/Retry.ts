/**
 * `payouts retry BATCH`: a new batch of what a finished batch proved unpaid (its failed, cancelled and
 * expired rows), paid like `payouts run` or dropped in a job folder; with `--fix FILE`, only FILE's
 * corrected rows (phone, operator, name). Its handler is in ../handlers/Retry.ts (loaded on use).
 */
import { Command, Options } from "@effect/cli"
import { batchArg } from "../JobOptions.ts"
import { runFields } from "./Run.ts"

// run's options without --sandbox and --time-scale: a fresh embedded sandbox never ran the parent
// batch, so retry pays against the service that did (help lists only what retry honours).
const { sandbox: _sandbox, timeScale: _timeScale, ...retryFields } = runFields

export const retryOptions = Options.all(retryFields)

export const retryCommand = Command.make("retry", {
  batch: batchArg,
  fix: Options.file("fix").pipe(
    Options.withDescription(
      "Pay again only these rows, corrected: a CSV in the batch's columns (its <name>.unpaid.csv as is), each row matched by its id to a failed, cancelled or expired row of BATCH; phone, operator and name may change, amount and currency may not. Any refused line refuses the file."
    ),
    Options.optional
  ),
  jobs: Options.directory("jobs").pipe(
    Options.withDescription("Drop the retry file in this job folder instead of paying it now: the watcher validates, preflights, asks for approval (--require-approval) and pays it."),
    Options.optional
  ),
  args: retryOptions
}).pipe(
  Command.withDescription(
    "Pay again a finished batch's failed, cancelled and expired rows as a new batch linked to it, like run (never unknown, abandoned or alarmed rows; a second retry pays nothing twice); with --fix FILE, only FILE's corrected rows, each linked to the row it pays again."
  )
)
