/** The safeguards' flags, shared by `payouts run` and `payouts watch`. */
import { Options } from "@effect/cli"
import { Duration, Effect } from "effect"
import { DEFAULT_SAFEGUARDS, type SafeguardSettings } from "../batch/Safeguards.ts"
import { durationOption } from "./Duration.ts"
import { UsageError } from "./Errors.ts"
import type { OptionValue } from "./Output.ts"

const withDefault = <A>(options: Options.Options<A>, value: A, description: string) =>
  options.pipe(Options.withDescription(description), Options.withDefault(value))

export const safeguardOptions = Options.all({
  stopMinSettled: withDefault(Options.integer("stop-min-settled"), DEFAULT_SAFEGUARDS.stopMinSettled, "Stop rule: judge the failure ratio once this many rows are settled."),
  stopFailureRatio: withDefault(Options.text("stop-failure-ratio"), "50%", "Stop rule: pause the batch when more than this share of settled rows failed."),
  breakerFailures: withDefault(Options.integer("breaker-failures"), DEFAULT_SAFEGUARDS.breakerFailures, "Hold an operator's rows after this many consecutive failures (0: off)."),
  stuckAfter: withDefault(durationOption("stuck-after"), Duration.millis(DEFAULT_SAFEGUARDS.stuckAfterMs), "List sent rows without a final status after this long as stuck.")
})

const ratio = (text: string) => {
  const value = Number(text.trim().replace(/%$/, ""))
  return Number.isFinite(value) && value >= 0 && value <= 100
    ? Effect.succeed(value / 100)
    : Effect.fail(new UsageError({ reason: `--stop-failure-ratio: "${text}" is not a percentage between 0 and 100` }))
}

export const safeguardSettings = (args: OptionValue<typeof safeguardOptions>) =>
  Effect.map(ratio(args.stopFailureRatio), (stopFailureRatio): SafeguardSettings => ({
    stopMinSettled: args.stopMinSettled,
    stopFailureRatio,
    breakerFailures: args.breakerFailures,
    stuckAfterMs: Duration.toMillis(args.stuckAfter)
  }))

