/** `payouts approve BATCH` and `payouts reject BATCH`: decide on a batch waiting in awaiting-approval/. */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { ApprovalError, approve, reject } from "../../jobs/Approval.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { UsageError } from "../Errors.ts"
import { batchArg, byOption, jobsOption, whoIs } from "../Jobs.ts"

const asUsage = Effect.mapError((e: unknown) => (e instanceof ApprovalError ? new UsageError({ reason: e.message }) : e))

export const approveCommand = Command.make("approve", { batch: batchArg, jobs: jobsOption, by: byOption }, ({ batch, by, jobs }) =>
  Effect.gen(function* () {
    const who = whoIs(by)
    const { approval, file } = yield* approve(jobFolder(jobs), batch, who)
    yield* Console.error(`Approved batch ${approval.batch_id} (${approval.file}) by ${who}; moved to ${file}: the watcher pays it on its next pass.`)
  }).pipe(asUsage)
).pipe(Command.withDescription("Approve a batch waiting in awaiting-approval/: it is paid by the watcher (who and when are recorded)."))

export const rejectCommand = Command.make(
  "reject",
  {
    batch: batchArg,
    jobs: jobsOption,
    by: byOption,
    reason: Options.text("reason").pipe(Options.withDescription("Why (recorded)."), Options.optional)
  },
  ({ batch, by, jobs, reason }) =>
    Effect.gen(function* () {
      const who = whoIs(by)
      const { approval, file } = yield* reject(jobFolder(jobs), batch, who, Option.getOrUndefined(reason))
      yield* Console.error(`Rejected batch ${approval.batch_id} (${approval.file}) by ${who}; moved to ${file}. Nothing was paid.`)
    }).pipe(asUsage)
).pipe(Command.withDescription("Drop a batch waiting in awaiting-approval/: it moves to rejected/ and is never paid."))
