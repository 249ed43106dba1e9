/**
 * `payouts reconcile BATCH`: checks the batch against the service. The command; its handler is in
 * ../handlers/Reconcile.ts (loaded on use).
 */
import { Args, Command, Options } from "@effect/cli"
import { batchArg, jobsOption, jobsStateOption } from "../JobOptions.ts"
import { jsonOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const reconcileCommand = Command.make("reconcile", {
  batch: batchArg.pipe(Args.optional),
  account: Options.boolean("account").pipe(
    Options.withDescription("Check the whole account instead of one batch: every listed payout carrying one of our tokens matches exactly one row (exit 5 otherwise).")
  ),
  jobs: jobsOption,
  state: jobsStateOption,
  connection: connectionOptions,
  ledger: Options.file("ledger").pipe(Options.withDescription("The batch's ledger to rewrite (default: found through its summary in the job folder)."), Options.optional),
  json: jsonOption
}).pipe(Command.withDescription("Check a batch against the service (exit 1 on any disagreement), or with --account every payout carrying one of our tokens (exit 5 when anything is off)."))
