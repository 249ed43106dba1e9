/**
 * The settings a profile may hold, each with its flag and its environment variable (`PAYOUTS_` and
 * the key in capitals): one list read by the config file's check, by `payouts config` and by the
 * options' fallbacks. Light on purpose: the command tree imports it, so `--help` pays nothing for it.
 */
import { Options } from "@effect/cli"
import { Config, ConfigError, Duration, Either } from "effect"
import { formatFeeEstimate } from "../../domain/FeeEstimate.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import { formatDuration, parseDuration } from "../Duration.ts"

export type Kind = "base-url" | "url" | "secret" | "text" | "integer" | "number" | "duration" | "choice"

export interface Setting {
  /** The key in a profile, snake_case. */
  readonly key: string
  /** "" when only the environment (or a profile) sets it. */
  readonly flag: string
  readonly variable: string
  readonly kind: Kind
  readonly choices?: ReadonlyArray<string>
  /** What applies when nothing sets it, as a person writes it; undefined: unset. */
  readonly fallback?: string
}

const ms = (millis: number) => formatDuration(Duration.millis(millis))
const D = DEFAULT_RUN_SETTINGS

const setting = (key: string, kind: Kind, fallback?: string, choices?: ReadonlyArray<string>, flag = key.replaceAll("_", "-")): Setting => ({
  key,
  flag,
  variable: `PAYOUTS_${key.toUpperCase()}`,
  kind,
  ...(fallback === undefined ? {} : { fallback }),
  ...(choices === undefined ? {} : { choices })
})

export const SETTINGS: ReadonlyArray<Setting> = [
  setting("base_url", "base-url"),
  setting("api_key", "secret"),
  setting("api_secret", "secret"),
  setting("callback_url", "url"),
  setting("return_url", "url", D.returnUrl),
  setting("cancel_url", "url", D.cancelUrl),
  setting("state", "text", "~/.local/state/payouts/payouts.db"),
  setting("concurrency", "integer", String(D.concurrency)),
  setting("rate", "number", "adaptive"),
  setting("poll_interval", "duration", ms(D.pollIntervalMs)),
  setting("poll_max", "duration", ms(D.pollMaxMs)),
  setting("track_timeout", "duration", ms(D.trackTimeoutMs)),
  setting("reconcile_grace", "duration", ms(D.reconcileGraceMs)),
  setting("reconcile_deadline", "duration", ms(D.reconcileDeadlineMs)),
  setting("resend_unknown", "choice", D.resendUnknown, ["after", "never"]),
  setting("lease_ttl", "duration", ms(D.leaseTtlMs)),
  setting("request_timeout", "duration", ms(D.requestTimeoutMs)),
  setting("listen", "text"),
  setting("repeat_window", "duration", "24h"),
  setting("on_insufficient", "choice", D.onInsufficient, ["abort", "partial"]),
  setting("fee_estimate", "text", formatFeeEstimate(D.feePercent)),
  setting("ledger_every", "duration", "15s"),
  setting("progress_every", "duration", "5s"),
  setting("output_retry", "duration", "2m"),
  setting("max_payout", "text"),
  setting("max_batch_total", "text"),
  setting("daily_cap", "text"),
  setting("phone_daily_limit", "text"),
  setting("notify_url", "url", undefined, undefined, "notify"),
  setting("notify_secret", "secret", undefined, undefined, ""),
  setting("approvers", "text"),
  setting("submitted_by", "text"),
  setting("schedule", "text"),
  setting("timezone", "text"),
  setting("settle", "duration", "2s"),
  setting("scan_every", "duration", "1s"),
  setting("retry_every", "duration", "1m"),
  setting("log_format", "choice", "text", ["text", "json"]),
  setting("health", "text"),
  setting("health_every", "duration", "1m")
]

const byKey = new Map(SETTINGS.map((s) => [s.key, s]))

export const variableOf = (key: string): string => byKey.get(key)?.variable ?? `PAYOUTS_${key.toUpperCase()}`

/**
 * A flag's fallback: its environment variable, else the selected profile's value (one
 * ConfigProvider, installed by ./Profile.ts, serves both), else the option's own default. Put it
 * before `Options.optional`: a fallback under an optional would skip the `Some`.
 */
export const fromEnvironment =
  <B>(key: string, config: (variable: string) => Config.Config<B>) =>
  <A>(self: Options.Options<A>): Options.Options<A | B> =>
    self.pipe(Options.withDescription(`Environment: ${variableOf(key)}.`), Options.withFallbackConfig(config(variableOf(key))))

/** A duration from the environment or a profile; the error names the variable once. */
export const durationFallback = (variable: string): Config.Config<Duration.Duration> =>
  Config.string(variable).pipe(Config.mapOrFail((text) => Either.mapLeft(parseDuration(text), (why) => ConfigError.InvalidData([], why))))

/** The words a profile's check (File.ts) uses too, so the environment and the file say the same. */
export const AT_LEAST_ONE = "must be a whole number, at least 1"
export const ABOVE_ZERO = "must be a number above 0"

const numberFrom = (variable: string, parse: (text: string) => number | undefined, why: string): Config.Config<number> =>
  Config.string(variable).pipe(
    Config.mapOrFail((text) => {
      const n = parse(text.trim())
      return n === undefined ? Either.left(ConfigError.InvalidData([], why)) : Either.right(n)
    })
  )

/** A count (concurrency) from the environment or a profile: 1 or more, refused otherwise. */
export const positiveInteger = (variable: string) =>
  numberFrom(variable, (text) => (/^\d+$/.test(text) && Number(text) >= 1 ? Number(text) : undefined), AT_LEAST_ONE)

/** A rate from the environment or a profile: a finite number above 0 (0 would never send anything). */
export const positiveNumber = (variable: string) =>
  numberFrom(variable, (text) => (text !== "" && Number.isFinite(Number(text)) && Number(text) > 0 ? Number(text) : undefined), ABOVE_ZERO)
