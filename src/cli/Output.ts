import { Options } from "@effect/cli"

/** What a parsed option (or `Options.all`) yields. */
export type OptionValue<T> = T extends Options.Options<infer A> ? A : never
import { Console } from "effect"

export const jsonOption = Options.boolean("json").pipe(Options.withAlias("j"), Options.withDescription("Print JSON (for scripts) instead of a table."))

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

export const wideOption = Options.boolean("wide").pipe(Options.withDescription("Show every column, whole, however wide the table (by default it fits the screen)."))
