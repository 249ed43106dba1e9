/** `payouts summary`: the command; its handler is in ../handlers/Summary.ts (loaded on use). */
import { Command } from "@effect/cli"
import { jsonOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const summaryCommand = Command.make("summary", { connection: connectionOptions, json: jsonOption }).pipe(
  Command.withDescription("Show balances per currency and the activity of the last 30 days.")
)
