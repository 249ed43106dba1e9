/**
 * `payouts resolve BATCH`: what a person does when a run ends with exit 5. The command; its handler
 * is in ../handlers/Resolve.ts (loaded on use).
 */
import { Command, Options } from "@effect/cli"
import { batchArg, jobsOption, jobsStateOption } from "../JobOptions.ts"
import { jsonOption } from "../Output.ts"
import { connectionOptions, redirectOptions } from "../Settings.ts"

export const resolveCommand = Command.make("resolve", {
  batch: batchArg,
  jobs: jobsOption,
  state: jobsStateOption,
  connection: connectionOptions,
  redirects: redirectOptions,
  line: Options.integer("line").pipe(Options.withDescription("The row (its line in the file) to show or decide."), Options.optional),
  by: Options.text("by").pipe(Options.withDescription("Who decides (required; recorded with the decision).")),
  reason: Options.text("reason").pipe(Options.withDescription("Why (recorded with the decision)."), Options.withDefault("")),
  adopt: Options.text("adopt").pipe(Options.withPseudoName("REFERENCE"), Options.withDescription("Adopt this payout as the row's (checked by a status lookup and for uniqueness)."), Options.optional),
  resend: Options.boolean("resend").pipe(Options.withDescription("Send the row's payout again now (refused while a listed payout carries its token).")),
  abandon: Options.boolean("abandon").pipe(Options.withDescription("Declare the row not paid: it is never retried automatically.")),
  acknowledge: Options.boolean("acknowledge").pipe(Options.withDescription("Clear the row's alarm after checking it (e.g. a duplicate settled with the recipient).")),
  listingOk: Options.boolean("listing-ok").pipe(Options.withDescription("Clear the account alarm after a person checked the service's listing.")),
  json: jsonOption
}).pipe(
  Command.withDescription(
    "Settle rows a run could not prove (exit 5): show the evidence; adopt a payout, resend, abandon, or clear an alarm, recording who and why."
  )
)
