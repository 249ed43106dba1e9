/** `payouts status REFERENCE`: the command; its handler is in ../handlers/Status.ts (loaded on use). */
import { Args, Command } from "@effect/cli"
import { jsonOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

const reference = Args.text({ name: "REFERENCE" }).pipe(
  Args.withDescription("The reference returned when the pay-in or payout was created (TXN...).")
)

export const statusCommand = Command.make("status", { connection: connectionOptions, json: jsonOption, reference }).pipe(
  Command.withDescription("Look up the current status of a pay-in or payout by its reference.")
)
