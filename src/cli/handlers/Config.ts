/**
 * `payouts config`: each setting's value as a command would take it (flag, else environment, else the
 * selected profile, else the built-in default) and its source. Secrets are never shown: a mask, and
 * for the key a fingerprint that tells two keys apart (Confirm.ts).
 */
import { Console, Effect, Option, Redacted } from "effect"
import type { configCommand } from "../commands/Config.ts"
import { keyFingerprint } from "../Confirm.ts"
import { findConfigFile, type LoadedProfile, problemOf } from "../config/File.ts"
import { SETTINGS, type Setting } from "../config/Keys.ts"
import { ActiveProfile } from "../config/Profile.ts"
import { environment } from "../config/Sources.ts"
import type { Parsed } from "../Lazy.ts"
import { defaultStorePath } from "../StoreLocation.ts"
import { printJson } from "../Output.ts"
import { column, renderTable } from "../Table.ts"

type Source = "flag" | "environment" | "profile" | "default" | "unset"

interface Resolved {
  readonly key: string
  readonly flag: string | null
  readonly variable: string
  /** Masked for a secret; null when unset. */
  readonly value: string | null
  readonly source: Source
  /** The source in words: `flag --concurrency`, `environment PAYOUTS_RATE`, `profile live (PAYOUTS_LIVE_KEY)`. */
  readonly from: string
  readonly problem?: string
}

const MASK = "********"

/** A URL's password is a secret too (a postgres:// store, a callback with credentials). */
const withoutPassword = (text: string) => {
  if (!URL.canParse(text)) return text
  const url = new URL(text)
  if (url.password === "") return text
  url.password = "***"
  return url.toString()
}

const shown = (setting: Setting, text: string) =>
  setting.kind !== "secret" ? withoutPassword(text) : setting.key === "api_key" ? `${MASK} (${keyFingerprint(Redacted.make(text))})` : MASK

const checkedAs = (setting: Setting, text: string): unknown =>
  setting.kind === "integer" || setting.kind === "number" ? (text.trim() === "" ? Number.NaN : Number(text)) : text

const resolveOne = (setting: Setting, flag: Option.Option<string | Redacted.Redacted>, profile: Option.Option<LoadedProfile>) =>
  Effect.gen(function* () {
    const base = { key: setting.key, flag: setting.flag === "" ? null : `--${setting.flag}`, variable: setting.variable }
    const found = (text: string, source: Source, from: string): Resolved => {
      const problem = source === "default" ? undefined : problemOf(setting, checkedAs(setting, text))
      return { ...base, value: shown(setting, text), source, from, ...(problem === undefined ? {} : { problem }) }
    }
    if (Option.isSome(flag)) {
      const text = Redacted.isRedacted(flag.value) ? Redacted.value(flag.value) : flag.value
      return found(text, "flag", `flag --${setting.flag}`)
    }
    const env = yield* environment(setting.variable)
    if (Option.isSome(env)) return found(env.value, "environment", `environment ${setting.variable}`)
    if (Option.isSome(profile)) {
      const named = profile.value.secretVariables.get(setting.key)
      const value = profile.value.values.get(setting.variable)
      const where = `profile ${profile.value.name}${named === undefined ? "" : ` (${named})`}`
      if (value !== undefined) return found(value, "profile", where)
      if (named !== undefined) return { ...base, value: null, source: "unset", from: `unset (profile ${profile.value.name} reads ${named}, which is not set)` } satisfies Resolved
    }
    if (setting.key === "state") return found(defaultStorePath({ XDG_STATE_HOME: Option.getOrUndefined(yield* environment("XDG_STATE_HOME")) }), "default", "default")
    if (setting.fallback !== undefined) return found(setting.fallback, "default", "default")
    return { ...base, value: null, source: "unset", from: "unset" } satisfies Resolved
  })

export const config = ({ flags, json }: Parsed<typeof configCommand>) =>
  Effect.gen(function* () {
    const profile = yield* ActiveProfile
    const { dir, file } = yield* findConfigFile
    const settings = yield* Effect.forEach(SETTINGS, (setting) => resolveOne(setting, flags[setting.key] ?? Option.none(), profile))
    if (json) {
      return yield* printJson({
        profile: Option.match(profile, {
          onNone: () => null,
          onSome: (p) => ({ name: p.name, selected_by: p.selectedBy, file: p.file, live: p.live })
        }),
        config_file: Option.getOrNull(file),
        settings
      })
    }
    const heading = Option.match(profile, {
      onNone: () =>
        `Profile: none (pass --profile NAME or set PAYOUTS_PROFILE); config file: ${Option.getOrElse(file, () => `none in ${dir}`)}`,
      onSome: (p) =>
        `Profile: ${p.name} (${p.selectedBy === "flag" ? "--profile" : "PAYOUTS_PROFILE"}) from ${p.file}` +
        (p.live ? "\nLive: paying asks for confirmation on a terminal, and without one is refused unless --yes" : "")
    })
    const columns = [
      column<Resolved>("SETTING", (r) => r.flag ?? r.variable),
      column<Resolved>("VALUE", (r) => r.value ?? "-"),
      column<Resolved>("SOURCE", (r) => r.from),
      ...(settings.some((r) => r.problem !== undefined) ? [column<Resolved>("PROBLEM", (r) => r.problem ?? "")] : [])
    ]
    const table = renderTable(columns, settings)
    yield* Console.log(`${heading}\n\n${table}`)
  })
