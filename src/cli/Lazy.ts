/**
 * Commands load their handlers on first use. The command tree (names, options, descriptions) is all
 * that `payouts --help` and argument parsing need; a handler's module pulls in what only that command
 * uses (the HTTP client, the SQL drivers, the phone metadata, the run engine, the sandbox), and in the
 * bundle (scripts/build.mjs) each dynamic import below becomes a chunk loaded only when it runs.
 */
import type { Command } from "@effect/cli"
import { Effect } from "effect"

/** What a command's handler receives: its parsed options and arguments. */
export type Parsed<C> = C extends Command.Command<infer _Name, infer _R, infer _E, infer A> ? A : never

/** The handler `pick` finds in the module `load` imports, imported when the command runs. */
export const lazy = <M, A, E, R>(name: string, load: () => Promise<M>, pick: (module: M) => (args: A) => Effect.Effect<void, E, R>) =>
  Effect.fn(`payouts.${name}`)(function* (args: A) {
    const module = yield* Effect.promise(load)
    return yield* pick(module)(args)
  })
