/**
 * `payouts approve BATCH` and `payouts reject BATCH`: decide on a batch waiting in awaiting-approval/.
 * The commands; their handlers are in ../handlers/Approve.ts (loaded on use).
 */
import { Command, Options } from "@effect/cli"
import { batchArg, deciderOption, jobsOption } from "../JobOptions.ts"

export const approveCommand = Command.make("approve", { batch: batchArg, jobs: jobsOption, by: deciderOption }).pipe(
  Command.withDescription(
    "Approve a batch waiting in awaiting-approval/: the approval binds its id (the file's hash) and totals; who, when and what are recorded. A file edited since it was put up is not approved: it goes back to be put up as a new batch."
  )
)

export const rejectCommand = Command.make("reject", {
  batch: batchArg,
  jobs: jobsOption,
  by: deciderOption,
  reason: Options.text("reason").pipe(Options.withDescription("Why (recorded)."), Options.optional)
}).pipe(Command.withDescription("Drop a batch waiting in awaiting-approval/: it moves to rejected/ and is never paid."))
