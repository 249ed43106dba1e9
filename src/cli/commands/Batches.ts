/** `payouts batches`: the command; its handler is in ../handlers/Batches.ts (loaded on use). */
import { Command } from "@effect/cli"
import { jobsOption, jobsStateOption } from "../JobOptions.ts"
import { jsonOption, wideOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const batchesCommand = Command.make("batches", { jobs: jobsOption, state: jobsStateOption, connection: connectionOptions, json: jsonOption, wide: wideOption }).pipe(
  Command.withDescription("List the account's batches with their state and row counts.")
)
