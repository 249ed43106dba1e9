/**
 * `payouts resume BATCH`: lifts a pause (stop rule, circuit breaker); the next run or watch pass goes
 * on. The command; its handler is in ../handlers/Resume.ts (loaded on use).
 */
import { Command } from "@effect/cli"
import { batchArg, jobsOption, jobsStateOption } from "../JobOptions.ts"
import { connectionOptions } from "../Settings.ts"

export const resumeCommand = Command.make("resume", { batch: batchArg, jobs: jobsOption, state: jobsStateOption, connection: connectionOptions }).pipe(
  Command.withDescription("Resume a paused batch: clears the pause so the next run or watch pass continues it.")
)
