/**
 * The config file: `$XDG_CONFIG_HOME/payouts/config.json` or `config.toml` (else `~/.config/...`),
 * holding named profiles. Read only when a profile is selected, checked whole with Schema, and every
 * fault is one line naming the file, the profile and the key. A file that holds a secret must be
 * readable by its owner alone (0600): anyone else who can read it can pay with it.
 */
import { Config, ConfigProvider, Effect, Either, Option, ParseResult, Schema } from "effect"
import { existsSync, readFileSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { checkBaseUrl } from "../../api/ClientConfig.ts"
import { parseDuration } from "../Duration.ts"
import { UsageError } from "../Errors.ts"
import { type Kind, type Setting, SETTINGS } from "./Keys.ts"

/** A profile as selected and read: its values by environment variable, secrets included. */
export interface LoadedProfile {
  readonly name: string
  readonly selectedBy: "flag" | "environment"
  readonly file: string
  readonly live: boolean
  readonly values: ReadonlyMap<string, string>
  /** key -> the variable a `<key>_env` names, for the secrets read from the environment. */
  readonly secretVariables: ReadonlyMap<string, string>
}

const SECRET_KEYS = SETTINGS.filter((s) => s.kind === "secret").map((s) => s.key)
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const isHttpUrl = (text: string) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)

/** Why a value cannot be this setting, or undefined when it can. Shared with `payouts config`. */
export const problemOf = (setting: Pick<Setting, "kind" | "choices">, value: unknown): string | undefined => {
  const kind: Kind = setting.kind
  if (kind === "integer") return typeof value === "number" && Number.isInteger(value) && value >= 1 ? undefined : "must be a whole number, at least 1"
  if (kind === "number") return typeof value === "number" && Number.isFinite(value) && value > 0 ? undefined : "must be a number above 0"
  if (typeof value !== "string" || value.trim() === "") return "must be a non-empty string"
  if (kind === "base-url") return Either.match(checkBaseUrl(value), { onLeft: (why) => why, onRight: () => undefined })
  if (kind === "url") return isHttpUrl(value) ? undefined : "must be an http(s) URL"
  if (kind === "duration") return Either.match(parseDuration(value), { onLeft: (why) => why, onRight: () => undefined })
  if (kind === "choice") return setting.choices?.includes(value) === true ? undefined : `must be one of ${(setting.choices ?? []).join(", ")}`
  return undefined
}

const checked = (check: (value: unknown) => string | undefined) => Schema.Unknown.pipe(Schema.filter((value) => check(value) ?? true))

const ProfileSchema = Schema.Struct({
  live: Schema.optional(checked((value) => (typeof value === "boolean" ? undefined : "must be true or false"))),
  description: Schema.optional(checked((value) => (typeof value === "string" ? undefined : "must be a string"))),
  ...Object.fromEntries(SECRET_KEYS.map((key) => [`${key}_env`, Schema.optional(checked((value) => (typeof value === "string" && ENV_NAME.test(value) ? undefined : "must name an environment variable, e.g. PAYOUTS_LIVE_KEY")))])),
  ...Object.fromEntries(SETTINGS.map((setting) => [setting.key, Schema.optional(checked((value) => problemOf(setting, value)))]))
})

const FileSchema = Schema.Struct({ profiles: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })

export const configDir = Effect.map(
  Effect.orElseSucceed(Config.option(Config.string("XDG_CONFIG_HOME")), () => Option.none<string>()),
  (xdg) => resolve(Option.getOrElse(Option.filter(xdg, (dir) => dir.trim() !== ""), () => join(homedir(), ".config")), "payouts")
)

/** The config file in use, if any: both formats at once is refused (which one would win is a guess). */
export const findConfigFile = Effect.flatMap(configDir, (dir) => {
  const found = ["config.json", "config.toml"].map((name) => join(dir, name)).filter((path) => existsSync(path))
  if (found.length > 1) return Effect.fail(new UsageError({ reason: `config files ${found.join(" and ")} both exist: keep one` }))
  return Effect.succeed({ dir, file: Option.fromNullable(found[0]) })
})

interface TomlModule {
  readonly parse: (text: string) => unknown
}

const Point = Schema.Struct({ line: Schema.Number, column: Schema.Number })
/** Where a parser says it stopped: the TOML parser's syntax errors carry `location`, its other errors `line`. */
const Position = Schema.decodeUnknownOption(Point)
const Location = Schema.decodeUnknownOption(Schema.Struct({ location: Schema.Struct({ start: Point }) }))
const Found = Schema.decodeUnknownOption(Schema.Struct({ found: Schema.NullOr(Schema.String) }))

/** Node's JSON.parse says "at position N": turned into a line and a column. */
const jsonPosition = (text: string, error: unknown) =>
  Option.map(Option.fromNullable(/at position (\d+)/.exec(error instanceof Error ? error.message : "")), (match) => {
    const before = text.slice(0, Number(match[1])).split("\n")
    return { line: before.length, column: before[before.length - 1].length + 1 }
  })

const parseText = (file: string, text: string): Either.Either<unknown, string> => {
  try {
    if (!file.endsWith(".toml")) return Either.right(JSON.parse(text))
    // Required only for a TOML file: @effect/cli depends on this parser already (scripts/build.mjs).
    const toml: TomlModule = createRequire(import.meta.url)("toml")
    return Either.right(toml.parse(text))
  } catch (error) {
    const format = file.endsWith(".toml") ? "TOML" : "JSON"
    const at = Option.orElse(Position(error), () => Option.orElse(Option.map(Location(error), (l) => l.location.start), () => jsonPosition(text, error)))
    const where = Option.match(at, { onNone: () => "", onSome: (p) => ` at line ${p.line}, column ${p.column}` })
    const found = Found(error)
    const why = Option.isSome(found)
      ? `unexpected ${found.value.found === null ? "end of file" : JSON.stringify(found.value.found)}`
      : error instanceof Error ? error.message.split("\n")[0].replace(/ in JSON at position \d+.*$/, "") : String(error)
    return Either.left(`not valid ${format}${where}: ${why}`)
  }
}

const fault = (file: string, where: string, reason: string) => new UsageError({ reason: `config file ${file}: ${where}${reason}` })

/** The first issue of a decode, as `key "k": why`. */
const firstIssue = (error: ParseResult.ParseError, unknownKey: string) => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const key = issue?.path.map(String).join(".") ?? ""
  const why = issue === undefined ? "invalid" : issue._tag === "Unexpected" ? unknownKey : issue.message
  return key === "" ? why : `key "${key}": ${why}`
}

const readEnv = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Effect.withConfigProvider(ConfigProvider.fromEnv()),
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.map(Option.filter((value) => value.trim() !== ""))
  )

const holdsSecret = (profile: Readonly<Record<string, unknown>>) =>
  SECRET_KEYS.find((key) => profile[key] !== undefined) ??
  (typeof profile.state === "string" && URL.canParse(profile.state) && new URL(profile.state).password !== "" ? "state" : undefined)

export const loadProfile = (name: string, selectedBy: LoadedProfile["selectedBy"]) =>
  Effect.gen(function* () {
    const { dir, file: found } = yield* findConfigFile
    if (Option.isNone(found)) {
      return yield* new UsageError({ reason: `profile "${name}" selected, but there is no config file (${join(dir, "config.json")} or config.toml)` })
    }
    const file = found.value
    const text = yield* Effect.try({ try: () => readFileSync(file, "utf8"), catch: (error) => fault(file, "", `cannot be read: ${String(error)}`) })
    const data = yield* Either.mapLeft(parseText(file, text), (why) => fault(file, "", why))
    const { profiles } = yield* Schema.decodeUnknown(FileSchema, { onExcessProperty: "error" })(data).pipe(
      Effect.mapError((error) => fault(file, "", `${firstIssue(error, "unknown key")}; expected { "profiles": { "NAME": { ... } } }`))
    )
    // Every profile is checked, not only the one selected: a mistake shows on the first use of the file.
    const decoded: Record<string, Readonly<Record<string, unknown>>> = {}
    for (const [profileName, raw] of Object.entries(profiles)) {
      decoded[profileName] = yield* Schema.decodeUnknown(ProfileSchema, { onExcessProperty: "error" })(raw).pipe(
        Effect.mapError((error) => fault(file, `profile "${profileName}", `, firstIssue(error, "unknown key (payouts config lists the settings)")))
      )
      const both = SECRET_KEYS.find((key) => decoded[profileName][key] !== undefined && decoded[profileName][`${key}_env`] !== undefined)
      if (both !== undefined) return yield* fault(file, `profile "${profileName}", `, `key "${both}": give ${both} or ${both}_env, not both`)
    }
    const mode = statSync(file).mode & 0o777
    if ((mode & 0o077) !== 0) {
      const secret = Object.entries(decoded).flatMap(([profileName, profile]) => {
        const key = holdsSecret(profile)
        return key === undefined ? [] : [{ profileName, key }]
      })[0]
      if (secret !== undefined) {
        const instead = secret.key === "state" ? "" : `, or read it from the environment with ${secret.key}_env`
        return yield* fault(file, "", `holds a secret (profile "${secret.profileName}", key "${secret.key}") but others can read it (mode ${mode.toString(8).padStart(3, "0")}): run chmod 600 ${file}${instead}`)
      }
    }
    const profile = decoded[name]
    if (profile === undefined) {
      const known = Object.keys(decoded)
      return yield* fault(file, "", `no profile "${name}" (${known.length === 0 ? "it defines none" : `profiles: ${known.join(", ")}`})`)
    }
    const values = new Map<string, string>()
    for (const setting of SETTINGS) {
      const value = profile[setting.key]
      if (value !== undefined) values.set(setting.variable, String(value))
    }
    const secretVariables = new Map<string, string>()
    for (const key of SECRET_KEYS) {
      const variable = profile[`${key}_env`]
      if (typeof variable !== "string") continue
      secretVariables.set(key, variable)
      const value = yield* readEnv(variable)
      if (Option.isSome(value)) values.set(`PAYOUTS_${key.toUpperCase()}`, value.value)
    }
    return { name, selectedBy, file, live: profile.live === true, values, secretVariables } satisfies LoadedProfile
  })
