/**
 * The selected profile (`--profile NAME`, else `PAYOUTS_PROFILE`) becomes a layer of settings under
 * the environment: every option's fallback reads the environment first, then the profile, then its
 * built-in default (flag > environment > profile > default). The profile is read before the command
 * line is parsed, since the options' fallbacks are read while parsing; so `--profile` is found in the
 * raw arguments here, and declared as an option (Settings.ts) for the parser and `--help`.
 */
import { Config, ConfigError, ConfigProvider, ConfigProviderPathPatch, Context, Effect, HashSet, Layer, Option } from "effect"
import type { LoadedProfile } from "./File.ts"

export class ActiveProfile extends Context.Reference<ActiveProfile>()("cli/ActiveProfile", {
  defaultValue: (): Option.Option<LoadedProfile> => Option.none()
}) {}

const HELP_ONLY = new Set(["--help", "-h", "--version", "--completions", "--wizard"])

/** The value of `--profile NAME` or `--profile=NAME` among the arguments (after node and the script). */
export const profileArgument = (argv: ReadonlyArray<string>): Option.Option<string> => {
  const args = argv.slice(2)
  for (const [i, arg] of args.entries()) {
    if (arg === "--") break
    if (arg.startsWith("--profile=")) return Option.some(arg.slice("--profile=".length))
    if (arg === "--profile" && i + 1 < args.length) return Option.some(args[i + 1])
  }
  return Option.none()
}

/** The environment, and where it says nothing (a missing variable, not a wrong one) the profile. */
const underEnvironment = (profile: ReadonlyMap<string, string>): ConfigProvider.ConfigProvider => {
  const env = ConfigProvider.fromEnv().flattened
  const values = ConfigProvider.fromMap(new Map(profile)).flattened
  return ConfigProvider.fromFlat(
    ConfigProvider.makeFlat({
      load: (path, primitive, split) =>
        env.load(path, primitive, split).pipe(
          Effect.catchIf(ConfigError.isMissingDataOnly, (missing) =>
            values.load(path, primitive, split).pipe(Effect.catchIf(ConfigError.isMissingDataOnly, () => Effect.fail(missing)))
          )
        ),
      enumerateChildren: (path) =>
        Effect.zipWith(env.enumerateChildren(path), Effect.orElseSucceed(values.enumerateChildren(path), () => HashSet.empty<string>()), (a, b) => HashSet.union(a, b)),
      patch: ConfigProviderPathPatch.empty
    })
  )
}

interface Choice {
  readonly name: string
  readonly by: "flag" | "environment"
}

const selected = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const flag = Option.filter(profileArgument(argv), (name) => name.trim() !== "")
    if (Option.isSome(flag)) return Option.some<Choice>({ name: flag.value.trim(), by: "flag" })
    const env = yield* Effect.orElseSucceed(Config.option(Config.string("PAYOUTS_PROFILE")), () => Option.none<string>())
    return Option.map(Option.filter(env, (name) => name.trim() !== ""), (name): Choice => ({ name: name.trim(), by: "environment" }))
  })

/**
 * For the entry point: the profile named on the command line or in PAYOUTS_PROFILE, read and checked
 * (a fault fails with a UsageError: exit 2), under the environment. Nothing is read for `--help`,
 * `--version` and the like, nor when no profile is selected.
 */
export const profileLayer = (argv: ReadonlyArray<string>) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      if (argv.length <= 2 || argv.slice(2).some((arg) => HELP_ONLY.has(arg))) return Layer.empty
      const choice = yield* selected(argv)
      if (Option.isNone(choice)) return Layer.empty
      const { loadProfile } = yield* Effect.promise(() => import("./File.ts"))
      const profile = yield* loadProfile(choice.value.name, choice.value.by)
      return Layer.merge(Layer.setConfigProvider(underEnvironment(profile.values)), Layer.succeed(ActiveProfile, Option.some(profile)))
    })
  )
