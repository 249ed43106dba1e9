/** `payouts approve BATCH` and `payouts reject BATCH`: decide on a batch waiting in awaiting-approval/. */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { ApprovalError, approve, reject } from "../../jobs/Approval.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { UsageError } from "../Errors.ts"
import { batchArg, deciderOption, jobsOption } from "../Jobs.ts"

const asUsage = Effect.mapError((e: unknown) => (e instanceof ApprovalError ? new UsageError({ reason: e.message }) : e))

export const approveCommand = Command.make("approve", { batch: batchArg, jobs: jobsOption, by: deciderOption }, ({ batch, by, jobs }) =>
  Effect.gen(function* () {
    const { approval, file } = yield* approve(jobFolder(jobs), batch, by)
    const totals = Object.entries(approval.approved_what?.currencies ?? {})
      .map(([currency, t]) => `${currency} ${t.amount} in ${t.rows} rows`)
      .join(", ")
    yield* Console.error(
      `Approved batch ${approval.batch_id} (${approval.file}: ${totals}) by ${approval.approved_by} at ${approval.approved_at}; moved to ${file}: the watcher pays it on its next pass, only if the file is still exactly this batch.`
    )
  }).pipe(asUsage)
).pipe(
  Command.withDescription(
    "Approve a batch waiting in awaiting-approval/: the approval binds its id (the file's hash) and totals; who, when and what are recorded. A file edited since it was put up is not approved: it goes back to be put up as a new batch."
  )
)

export const rejectCommand = Command.make(
  "reject",
  {
    batch: batchArg,
    jobs: jobsOption,
    by: deciderOption,
    reason: Options.text("reason").pipe(Options.withDescription("Why (recorded)."), Options.optional)
  },
  ({ batch, by, jobs, reason }) =>
    Effect.gen(function* () {
      const { approval, file } = yield* reject(jobFolder(jobs), batch, by, Option.getOrUndefined(reason))
      yield* Console.error(`Rejected batch ${approval.batch_id} (${approval.file}) by ${by.trim()}; moved to ${file}. Nothing was paid.`)
    }).pipe(asUsage)
).pipe(Command.withDescription("Drop a batch waiting in awaiting-approval/: it moves to rejected/ and is never paid."))
