/**
 * An option with a default says it in its help: @effect/cli keeps the value but prints only "This
 * setting is optional.", so the default is written into the description, in the form a person
 * would type it (`5m`, not a Duration object).
 */
import { Options } from "@effect/cli"
import { Duration } from "effect"
import { formatDuration } from "../Duration.ts"

const shown = (value: unknown): string => (Duration.isDuration(value) ? formatDuration(value) : String(value))

/** `options` with `value` as its default and `description` ending in "Default: value." */
export const withDefault = <A>(options: Options.Options<A>, value: A, description: string) =>
  options.pipe(Options.withDescription(`${description} Default: ${shown(value)}.`), Options.withDefault(value))
