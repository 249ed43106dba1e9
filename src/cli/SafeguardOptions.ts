/** The safeguards' flags: the guards (also `payouts validate`'s) and the stop rules of `run` and `watch`. */
import { Options } from "@effect/cli"
import { Duration, Effect, Either, Option } from "effect"
import type { GuardSettings } from "../intake/Guards.ts"
import { DEFAULT_SAFEGUARDS, type SafeguardSettings } from "../run/SafeguardSettings.ts"
import { isKnownCurrency, parseAmount } from "../domain/Money.ts"
import { durationOption } from "./Duration.ts"
import { UsageError } from "./Errors.ts"
import type { OptionValue } from "./Output.ts"
import { withDefault } from "./help/Defaults.ts"
import { textSetting } from "./Settings.ts"

const PER_CURRENCY = "CUR:AMOUNT,..."

/** What the run watches while it pays (not `validate`'s business). */
export const stopRuleOptions = Options.all({
  stopMinSettled: withDefault(Options.integer("stop-min-settled"), DEFAULT_SAFEGUARDS.stopMinSettled, "Stop rule: judge the failure ratio once this many rows are settled."),
  stopFailureRatio: withDefault(Options.text("stop-failure-ratio").pipe(Options.withPseudoName("RATIO")), "50%", "Stop rule: pause the batch when more than this share of settled rows failed."),
  breakerFailures: withDefault(Options.integer("breaker-failures"), DEFAULT_SAFEGUARDS.breakerFailures, "Circuit breaker: after this many consecutive failures of one operator (in the order sent), send it nothing new; its rows are held and the batch paused (0: off)."),
  breakerProbe: withDefault(durationOption("breaker-probe"), Duration.millis(DEFAULT_SAFEGUARDS.breakerProbeMs), "Circuit breaker: until one of an operator's payouts completes, at most --breaker-failures of them are sent (its other rows wait); after this long with no final status, they are sent without waiting."),
  stuckAfter: withDefault(durationOption("stuck-after"), Duration.millis(DEFAULT_SAFEGUARDS.stuckAfterMs), "List sent rows without a final status after this long as stuck.")
})

/** Limits checked against the file before anything is paid (so `validate` applies them too). */
export const guardOptions = Options.all({
  maxPayout: textSetting("max-payout", "PAYOUTS_MAX_PAYOUT", "Guard: refuse any single payout above this, per currency, e.g. XAF:500000,XOF:250000 (default: off).", PER_CURRENCY),
  maxBatchTotal: textSetting("max-batch-total", "PAYOUTS_MAX_BATCH_TOTAL", "Guard: refuse the rows that bring a batch above this total, per currency (default: off).", PER_CURRENCY),
  dailyCap: textSetting("daily-cap", "PAYOUTS_DAILY_CAP", "Guard: refuse the rows that bring the account's payouts of the last 24 hours, every batch, above this, per currency (default: off).", PER_CURRENCY),
  phoneDailyLimit: textSetting("phone-daily-limit", "PAYOUTS_PHONE_DAILY_LIMIT", "Guard: refuse a payout to a phone already paid this many times in the last 24 hours, every batch (default: off).", "N")
})

const ratio = (text: string) => {
  const value = Number(text.trim().replace(/%$/, ""))
  return Number.isFinite(value) && value >= 0 && value <= 100
    ? Effect.succeed(value / 100)
    : Effect.fail(new UsageError({ reason: `--stop-failure-ratio: "${text}" is not a percentage between 0 and 100` }))
}

/**
 * `XAF:500000,XOF:250000`: amounts in major units as a person writes them, read by the same strict
 * parser as the CSV's amounts (so `1,000` or `500000.5` for XAF is refused, not guessed).
 */
export const parsePerCurrency = (text: string): Either.Either<Readonly<Record<string, number>>, string> => {
  const limits: Record<string, number> = {}
  for (const part of text.split(",")) {
    const match = /^\s*([A-Za-z]{3})\s*:\s*(\S+)\s*$/.exec(part)
    if (match === null && /^\s*\d+\s*$/.test(part)) {
      return Either.left(`"${text.trim()}": "," separates currencies; write amounts without thousands separators (e.g. XAF:1000000)`)
    }
    if (match === null) return Either.left(`"${part.trim()}" is not CUR:AMOUNT (e.g. XAF:500000,XOF:250000)`)
    const currency = match[1].toUpperCase()
    if (!isKnownCurrency(currency)) return Either.left(`unknown currency ${currency}`)
    if (Object.hasOwn(limits, currency)) return Either.left(`${currency} is given twice`)
    const amount = parseAmount(match[2], currency)
    if (Either.isLeft(amount)) return Either.left(`${currency}: ${amount.left}`)
    limits[currency] = amount.right
  }
  return Either.right(limits)
}

const perCurrency = (flag: string, variable: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed({}),
    onSome: (text) =>
      Either.match(parsePerCurrency(text), {
        onLeft: (reason) => Effect.fail(new UsageError({ reason: `--${flag} (${variable}): ${reason}` })),
        onRight: Effect.succeed
      })
  })

const phoneLimit = (value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) =>
      /^\s*\d+\s*$/.test(text) && Number(text) >= 1
        ? Effect.succeed(Number(text))
        : Effect.fail(new UsageError({ reason: `--phone-daily-limit (PAYOUTS_PHONE_DAILY_LIMIT): "${text}" is not a whole number of payouts (at least 1)` }))
  })

export const guardSettings = (args: OptionValue<typeof guardOptions>): Effect.Effect<GuardSettings, UsageError> =>
  Effect.all({
    maxPayout: perCurrency("max-payout", "PAYOUTS_MAX_PAYOUT", args.maxPayout),
    maxBatchTotal: perCurrency("max-batch-total", "PAYOUTS_MAX_BATCH_TOTAL", args.maxBatchTotal),
    dailyCap: perCurrency("daily-cap", "PAYOUTS_DAILY_CAP", args.dailyCap),
    phoneDailyLimit: phoneLimit(args.phoneDailyLimit)
  })

/** The run's safeguards, the guards among them (intake and the pre-POST check read them from here). */
export const safeguardSettings = (args: OptionValue<typeof stopRuleOptions>, guardArgs: OptionValue<typeof guardOptions>) =>
  Effect.gen(function* () {
    const stopFailureRatio = yield* ratio(args.stopFailureRatio)
    const guards = yield* guardSettings(guardArgs)
    return {
      stopMinSettled: args.stopMinSettled,
      stopFailureRatio,
      breakerFailures: args.breakerFailures,
      breakerProbeMs: Duration.toMillis(args.breakerProbe),
      stuckAfterMs: Duration.toMillis(args.stuckAfter),
      guards
    } satisfies SafeguardSettings
  })
