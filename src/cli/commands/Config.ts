/**
 * `payouts config`: the settings a command would use, each with where it came from. It takes every
 * setting's flag (without the fallbacks: it tells the sources apart itself); the handler is in
 * ../handlers/Config.ts, loaded on use.
 */
import { Command, Options } from "@effect/cli"
import { type Kind, type Setting, SETTINGS } from "../config/Keys.ts"
import { jsonOption } from "../Output.ts"
import { profileOption } from "../Settings.ts"

const PSEUDO: Record<Kind, string> = { "base-url": "URL", url: "URL", secret: "SECRET", text: "VALUE", integer: "N", number: "N", duration: "DURATION", choice: "" }

const flag = (s: Setting) =>
  Options.text(s.flag).pipe(
    Options.withPseudoName(s.kind === "choice" ? (s.choices ?? []).join("|") : PSEUDO[s.kind]),
    Options.withDescription(`See what --${s.flag} would do (as run and watch read it). Environment: ${s.variable}.`),
    Options.optional
  )

const secretFlag = (s: Setting) =>
  Options.redacted(s.flag).pipe(
    Options.withPseudoName("SECRET"),
    Options.withDescription(`As run and watch read it; shown masked. Environment: ${s.variable}.`),
    Options.optional
  )

export const settingFlags = Options.all(
  Object.fromEntries(SETTINGS.filter((s) => s.flag !== "").map((s) => [s.key, s.kind === "secret" ? secretFlag(s) : flag(s)]))
)

export const configCommand = Command.make("config", { profile: profileOption, json: jsonOption, flags: settingFlags }).pipe(
  Command.withDescription(
    "Show the settings in effect (flag > environment > profile > default) and where each came from; secrets masked."
  )
)
