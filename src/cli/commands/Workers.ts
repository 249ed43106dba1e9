/** `payouts workers`: the command; its handler is in ../handlers/Workers.ts (loaded on use). */
import { Command } from "@effect/cli"
import { jobsOption, jobsStateOption } from "../JobOptions.ts"
import { jsonOption, wideOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const workersCommand = Command.make("workers", { jobs: jobsOption, state: jobsStateOption, connection: connectionOptions, json: jsonOption, wide: wideOption }).pipe(
  Command.withDescription("List the watch workers sharing this account's state store: last heartbeat, batches and files.")
)
