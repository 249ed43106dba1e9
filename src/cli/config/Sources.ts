/**
 * Where a setting a command took came from (flag > environment > profile), said in the words
 * `payouts config` uses, so that advice after a failure (a refused key, an unreachable service) names
 * the place to fix rather than every place it might be. Values are never read here, only their source.
 */
import { Config, ConfigProvider, Effect, Option } from "effect"
import { optionWords } from "../Argv.ts"
import { keyFingerprint } from "../Confirm.ts"
import type { Connection } from "../Settings.ts"
import { SETTINGS } from "./Keys.ts"
import { ActiveProfile } from "./Profile.ts"

/** A variable of the environment itself (not the profile under it); an empty one counts as unset. */
export const environment = (variable: string) =>
  Config.option(Config.string(variable)).pipe(
    Effect.withConfigProvider(ConfigProvider.fromEnv()),
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.map(Option.filter((value) => value.trim() !== ""))
  )

/**
 * `flag --base-url`, `environment PAYOUTS_BASE_URL` or `profile live (PAYOUTS_LIVE_KEY)`: where the
 * value of `key` (a profile key, e.g. "api_key") came from; none when nothing sets it. The flag is
 * found among the raw arguments (the parsed options do not say whether a value was typed).
 */
export const sourceOf = (key: string, argv: ReadonlyArray<string> = process.argv.slice(2)) =>
  Effect.gen(function* () {
    const setting = SETTINGS.find((s) => s.key === key)
    if (setting === undefined) return Option.none<string>()
    const args = optionWords(argv)
    const flag = `--${setting.flag}`
    if (setting.flag !== "" && args.some((arg) => arg === flag || arg.startsWith(`${flag}=`))) return Option.some(`flag ${flag}`)
    if (Option.isSome(yield* environment(setting.variable))) return Option.some(`environment ${setting.variable}`)
    const profile = yield* ActiveProfile
    return Option.flatMap(profile, (p) => {
      if (!p.values.has(setting.variable)) return Option.none()
      const named = p.secretVariables.get(key)
      return Option.some(`profile ${p.name}${named === undefined ? "" : ` (${named})`}`)
    })
  })

/** Where the connection's three settings came from, each in words (see `sourceOf`). */
export interface ConnectionSources {
  readonly baseUrl: Option.Option<string>
  readonly apiKey: Option.Option<string>
  readonly apiSecret: Option.Option<string>
}

export const connectionSources = (argv?: ReadonlyArray<string>) =>
  Effect.all({ baseUrl: sourceOf("base_url", argv), apiKey: sourceOf("api_key", argv), apiSecret: sourceOf("api_secret", argv) })

// Unknown (e.g. a caller outside the command line): every place it may come from.
const from = (source: Option.Option<string>, flag: string, variable: string) => Option.getOrElse(source, () => `${flag}, ${variable} or a profile`)

const SEE_CONFIG = "payouts config shows each setting and where it comes from."

/**
 * What to check when the service refuses the key: where the key and the secret in use came from, and
 * the base URL they were sent to (a key of another service, or of the sandbox, is refused too).
 */
export const credentialsAdvice = (sources: ConnectionSources, fingerprint?: string) =>
  `Check the API key${fingerprint === undefined ? "" : ` (${fingerprint})`} from ${from(sources.apiKey, "--api-key", "PAYOUTS_API_KEY")} ` +
  `and the secret from ${from(sources.apiSecret, "--api-secret", "PAYOUTS_API_SECRET")}, ` +
  `and that they belong to this service (base URL from ${from(sources.baseUrl, "--base-url", "PAYOUTS_BASE_URL")}). ${SEE_CONFIG}`

/** What to check when the service cannot be reached: the base URL, where it was set. */
export const baseUrlAdvice = (sources: Pick<ConnectionSources, "baseUrl">) =>
  Option.match(sources.baseUrl, {
    onNone: () => "check the base URL: --base-url, PAYOUTS_BASE_URL or a profile",
    onSome: (source) => `check the base URL, from ${source}`
  })

/** The advice for a refused key of `connection`: the key's fingerprint (never the key) and the sources. */
export const refusedKeyAdvice = (connection: Pick<Connection, "apiKey">) =>
  Effect.map(connectionSources(), (sources) => credentialsAdvice(sources, keyFingerprint(connection.apiKey)))
