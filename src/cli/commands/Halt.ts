/**
 * `payouts halt`: an account-wide stop kept in the state store. The command; its handler is in
 * ../handlers/Halt.ts (loaded on use).
 */
import { Command, Options } from "@effect/cli"
import { jobsOption, jobsStateOption } from "../JobOptions.ts"
import { jsonOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const haltCommand = Command.make("halt", {
  jobs: jobsOption,
  state: jobsStateOption,
  connection: connectionOptions,
  by: Options.text("by").pipe(Options.withPseudoName("NAME"), Options.withDescription("Who halts or lifts (required for either; recorded)."), Options.optional),
  reason: Options.text("reason").pipe(Options.withPseudoName("TEXT"), Options.withDescription("Why the account is halted (required to halt), or why it is lifted (optional); recorded."), Options.optional),
  lift: Options.boolean("lift").pipe(Options.withDescription("End the halt in force.")),
  json: jsonOption
}).pipe(
  Command.withDescription(
    "Stop every payout of the account at once (--by NAME --reason TEXT), lift the stop (--lift --by NAME), or show whether one is in force."
  )
)
