/**
 * `payouts config`: the settings a command would use, each with where it came from. It takes every
 * setting's flag (without the fallbacks: it tells the sources apart itself); the handler is in
 * ../handlers/Config.ts, loaded on use.
 */
import { Command, Options } from "@effect/cli"
import { SETTINGS } from "../config/Keys.ts"
import { jsonOption } from "../Output.ts"
import { profileOption } from "../Settings.ts"

const flag = (name: string, variable: string) =>
  Options.text(name).pipe(Options.withDescription(`As for run and watch. Environment: ${variable}.`), Options.optional)

const secretFlag = (name: string, variable: string) =>
  Options.redacted(name).pipe(Options.withDescription(`As for run and watch (shown masked). Environment: ${variable}.`), Options.optional)

export const settingFlags = Options.all(
  Object.fromEntries(SETTINGS.filter((s) => s.flag !== "").map((s) => [s.key, s.kind === "secret" ? secretFlag(s.flag, s.variable) : flag(s.flag, s.variable)]))
)

export const configCommand = Command.make("config", { profile: profileOption, json: jsonOption, flags: settingFlags }).pipe(
  Command.withDescription(
    "Show the settings in effect (flag > environment > profile > default) and where each came from; secrets masked."
  )
)
