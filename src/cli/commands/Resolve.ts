/**
 * `payouts resolve BATCH`: what a person does when a run ends with exit 5. Without a decision it
 * looks (no name needed); a decision names its rows and needs `--by` and `--reason`. The handler is in
 * ../handlers/Resolve.ts (loaded on use).
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
  line: Options.integer("line").pipe(Options.withPseudoName("N"), Options.withDescription("One row (its line in the file) to show or decide."), Options.optional),
  lines: Options.text("lines").pipe(
    Options.withPseudoName("LINES"),
    Options.withDescription("Several rows for one decision, e.g. 3,7-9 (asked once; --yes skips the question)."),
    Options.optional
  ),
  allUnknown: Options.boolean("all-unknown").pipe(Options.withDescription("Every unknown row of the batch, for one decision (asked once; --yes skips the question).")),
  by: Options.text("by").pipe(Options.withPseudoName("NAME"), Options.withDescription("Who decides (required with a decision; recorded with it)."), Options.optional),
  reason: Options.text("reason").pipe(Options.withPseudoName("TEXT"), Options.withDescription("Why (required with a decision; recorded with it)."), Options.optional),
  adopt: Options.text("adopt").pipe(Options.withPseudoName("REFERENCE"), Options.withDescription("Adopt this payout as the row's (one row; checked by a status lookup and for uniqueness)."), Options.optional),
  resend: Options.boolean("resend").pipe(Options.withDescription("Send the rows' payouts again now (refused while a listed payout carries a row's token or the listing cannot prove absence).")),
  abandon: Options.boolean("abandon").pipe(Options.withDescription("Declare the rows not paid: they are never retried automatically.")),
  acknowledge: Options.boolean("acknowledge").pipe(Options.withDescription("Clear the rows' alarms after checking them (e.g. a duplicate settled with the recipient).")),
  listingOk: Options.boolean("listing-ok").pipe(Options.withDescription("Clear the account alarm after a person checked the service's listing.")),
  yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Do not ask before a decision over several rows (--lines, --all-unknown).")),
  json: jsonOption
}).pipe(
  Command.withDescription(
    "Settle rows a run could not prove (exit 5): without a decision, show the rows that need a person; adopt a payout, resend, abandon, or clear an alarm for one or several rows, recording who and why. Exits 5 while a row still needs a person, else 0."
  )
)
