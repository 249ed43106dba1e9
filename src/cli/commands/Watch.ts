/**
 * `payouts watch [DIR]`: the job folder daemon (or one pass with `--once`). The command and its
 * options; the handler is in ../handlers/Watch.ts, loaded on use.
 */
import { Args, Command, Options } from "@effect/cli"
import { Config, Duration } from "effect"
import { DEFAULT_JOBS_DIR } from "../../jobs/JobFolder.ts"
import { durationFallback, fromEnvironment } from "../config/Keys.ts"
import { durationOption } from "../Duration.ts"
import { withDefault } from "../help/Defaults.ts"
import { approverOptions } from "../ApprovalOptions.ts"
import { watchBatchOptions } from "./Run.ts"

const watchOptions = Options.all({
  batch: watchBatchOptions,
  once: Options.boolean("once").pipe(Options.withDescription("Process what is waiting (and in processing/), then exit: for system cron.")),
  schedule: Options.text("schedule").pipe(Options.withPseudoName("CRON"), Options.withDescription('Take waiting files only at these times, e.g. "0 2 * * 1-5".'), fromEnvironment("schedule", Config.string), Options.optional),
  timezone: Options.text("timezone").pipe(Options.withPseudoName("ZONE"), Options.withDescription("Time zone of --schedule, e.g. Africa/Douala (default: the system's)."), fromEnvironment("timezone", Config.string), Options.optional),
  requireApproval: Options.boolean("require-approval").pipe(Options.withDescription("Validate and preflight each file, then wait for `payouts approve` before paying.")),
  ...approverOptions,
  settle: withDefault(durationOption("settle"), Duration.seconds(2), "A dropped file is complete once unchanged for this long (or write *.part and rename).").pipe(fromEnvironment("settle", durationFallback)),
  scanEvery: withDefault(durationOption("scan-every"), Duration.seconds(1), "How often the folder is looked at.").pipe(fromEnvironment("scan_every", durationFallback)),
  retryEvery: withDefault(
    durationOption("retry-every"),
    Duration.minutes(1),
    "When an incomplete batch in processing/ is tried again; the longest wait between tries of a file the service or the machine kept from running (from 1s, doubling)."
  ).pipe(fromEnvironment("retry_every", durationFallback)),
  logFormat: withDefault(Options.choice("log-format", ["text", "json"]), "text" as const, "Every log line as text (TIME LEVEL message key=value) or as one JSON object.").pipe(fromEnvironment("log_format", Config.literal("text", "json"))),
  health: Options.text("health").pipe(Options.withPseudoName("HOST:PORT"), Options.withDescription("Serve GET /health here."), fromEnvironment("health", Config.string), Options.optional),
  healthEvery: withDefault(durationOption("health-every"), Duration.minutes(1), "How often a health line is logged.").pipe(fromEnvironment("health_every", durationFallback))
})

export const watchCommand = Command.make("watch", { dir: Args.directory({ name: "DIR" }).pipe(Args.withDescription(`The job folder (created if missing). Default: ${DEFAULT_JOBS_DIR}.`), Args.withDefault(DEFAULT_JOBS_DIR)), args: watchOptions }).pipe(
  Command.withDescription("Watch a job folder: pay each complete *.csv dropped in it once, move it to done/ or rejected/ with its outputs.")
)
