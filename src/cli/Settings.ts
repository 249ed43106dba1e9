/**
 * Every setting is a flag with an environment fallback (`Options.withFallbackConfig`). Settings are
 * parsed as optional and required in the handler, so a missing one fails with `MissingSetting`
 * naming both the variable and the flag, and commands that can do without one (e.g. `--sandbox`)
 * simply do not require it.
 */
import { Options } from "@effect/cli"
import { Config, Effect, Option, Redacted } from "effect"
import { InvalidSetting, MissingSetting, UsageError } from "./Errors.ts"
import { ActiveProfile } from "./config/Profile.ts"
import type { OptionValue } from "./Output.ts"

const nonEmpty = <A>(value: Option.Option<A>, isEmpty: (a: A) => boolean) => Option.filter(value, (a) => !isEmpty(a))

const described = (variable: string, description: string) =>
  `${description} Environment: ${variable}.`

export const textSetting = (flag: string, variable: string, description: string, pseudoName = "URL") =>
  Options.text(flag).pipe(
    Options.withPseudoName(pseudoName),
    Options.withDescription(described(variable, description)),
    Options.withFallbackConfig(Config.string(variable)),
    Options.optional,
    Options.map((value) => nonEmpty(value, (text) => text.trim() === ""))
  )

export const secretSetting = (flag: string, variable: string, description: string, pseudoName = "SECRET") =>
  Options.redacted(flag).pipe(
    Options.withPseudoName(pseudoName),
    Options.withDescription(described(variable, description)),
    Options.withFallbackConfig(Config.redacted(variable)),
    Options.optional,
    Options.map((value) => nonEmpty(value, (secret) => Redacted.value(secret).trim() === ""))
  )

export const required = <A>(value: Option.Option<A>, variable: string, flag: string) =>
  Option.match(value, {
    onNone: () => Effect.fail(new MissingSetting({ variable, flag })),
    onSome: Effect.succeed
  })

/** `http(s)://host[:port]/.../v1`, returned without a trailing slash. */
export const checkBaseUrl = (text: string): Effect.Effect<string, InvalidSetting> => {
  const invalid = (reason: string) =>
    Effect.fail(new InvalidSetting({ variable: "PAYOUTS_BASE_URL", flag: "base-url", reason }))
  if (!URL.canParse(text.trim())) return invalid("not a URL (expected e.g. https://api.example.com/v1)")
  const url = new URL(text.trim())
  if (url.protocol !== "http:" && url.protocol !== "https:") return invalid("must start with http:// or https://")
  if (url.username !== "" || url.password !== "") return invalid("must not carry credentials")
  if (url.search !== "" || url.hash !== "") return invalid("must not carry a query or a fragment")
  const path = url.pathname.replace(/\/+$/, "")
  if (!path.endsWith("/v1")) return invalid(`must end in /v1 (got ${url.origin}${url.pathname})`)
  return Effect.succeed(`${url.origin}${path}`)
}

export const checkUrl = (variable: string, flag: string) => (text: string) =>
  URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)
    ? Effect.succeed(text)
    : Effect.fail(new InvalidSetting({ variable, flag, reason: "must be an http(s) URL" }))

// ---- Connection to the payment service ------------------------------------------------------

export interface Connection {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
  readonly apiSecret: Redacted.Redacted
  /** The profile the settings came from, if any, and whether it is marked live (Confirm.ts). */
  readonly profile?: string
  readonly live?: boolean
}

/**
 * Read before parsing (config/Profile.ts), declared here so the parser accepts it and `--help` shows
 * it: no fallback, since PAYOUTS_PROFILE has already been read there.
 */
export const profileOption = Options.text("profile").pipe(
  Options.withAlias("p"),
  Options.withPseudoName("NAME"),
  Options.withDescription(described("PAYOUTS_PROFILE", "Take settings from this profile of the config file ($XDG_CONFIG_HOME/payouts/config.json or config.toml); a flag or the environment still wins.")),
  Options.optional
)

export const connectionOptions = Options.all({
  profile: profileOption,
  baseUrl: textSetting("base-url", "PAYOUTS_BASE_URL", "Base URL of the payment API, ending in /v1."),
  apiKey: secretSetting("api-key", "PAYOUTS_API_KEY", "API key (prefer the environment: flags show in ps).", "KEY"),
  apiSecret: secretSetting("api-secret", "PAYOUTS_API_SECRET", "API secret (prefer the environment).", "SECRET")
})

export type ConnectionOptions = OptionValue<typeof connectionOptions>

/** A secret the profile reads from a variable that is not set: said plainly, not as a bare "missing". */
const requiredSecret = (value: Option.Option<Redacted.Redacted>, variable: string, flag: string, key: string): Effect.Effect<Redacted.Redacted, MissingSetting | UsageError> =>
  Effect.flatMap(ActiveProfile, (profile): Effect.Effect<Redacted.Redacted, MissingSetting | UsageError> => {
    const named = Option.flatMap(profile, (p) => Option.fromNullable(p.secretVariables.get(key)))
    if (Option.isNone(value) && Option.isSome(profile) && Option.isSome(named)) {
      return Effect.fail(
        new UsageError({
          reason: `Missing setting: profile "${profile.value.name}" reads ${key} from ${named.value}, which is not set (or set ${variable}, or pass --${flag})`
        })
      )
    }
    return required(value, variable, flag)
  })

export const resolveConnection = (raw: ConnectionOptions): Effect.Effect<Connection, MissingSetting | InvalidSetting | UsageError> =>
  Effect.all({
    baseUrl: required(raw.baseUrl, "PAYOUTS_BASE_URL", "base-url").pipe(Effect.flatMap(checkBaseUrl)),
    apiKey: requiredSecret(raw.apiKey, "PAYOUTS_API_KEY", "api-key", "api_key"),
    apiSecret: requiredSecret(raw.apiSecret, "PAYOUTS_API_SECRET", "api-secret", "api_secret"),
    profile: ActiveProfile
  }).pipe(
    Effect.map(({ profile, ...connection }) =>
      Option.match(profile, {
        onNone: () => connection,
        onSome: (p) => ({ ...connection, profile: p.name, live: p.live })
      })
    )
  )

// ---- Settings used by the batch commands ----------------------------------------------------

/** `--state`, else `PAYOUTS_STATE` (an empty one counts as unset), else the per-user store (StoreLocation). */
export const stateOption = Options.text("state").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription(described("PAYOUTS_STATE", "State store file (SQLite); default ~/.local/state/payouts/payouts.db, or the store of the watched folder holding the file.")),
  Options.withFallbackConfig(Config.string("PAYOUTS_STATE")),
  Options.optional
)

export const redirectOptions = Options.all({
  callbackUrl: textSetting("callback-url", "PAYOUTS_CALLBACK_URL", "Public URL the service posts webhooks to."),
  returnUrl: textSetting("return-url", "PAYOUTS_RETURN_URL", "return_url sent with each payout."),
  cancelUrl: textSetting("cancel-url", "PAYOUTS_CANCEL_URL", "cancel_url sent with each payout.")
})

export interface Redirects {
  readonly callbackUrl: Option.Option<string>
  readonly returnUrl: Option.Option<string>
  readonly cancelUrl: Option.Option<string>
}

export const resolveRedirects = (raw: OptionValue<typeof redirectOptions>): Effect.Effect<Redirects, InvalidSetting> =>
  Effect.all({
    callbackUrl: Effect.transposeOption(Option.map(raw.callbackUrl, checkUrl("PAYOUTS_CALLBACK_URL", "callback-url"))),
    returnUrl: Effect.transposeOption(Option.map(raw.returnUrl, checkUrl("PAYOUTS_RETURN_URL", "return-url"))),
    cancelUrl: Effect.transposeOption(Option.map(raw.cancelUrl, checkUrl("PAYOUTS_CANCEL_URL", "cancel-url")))
  })
