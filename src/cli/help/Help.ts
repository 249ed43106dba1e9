/**
 * `payouts --help`, `payouts COMMAND --help` (or `-h`, or no arguments at all) answered from the
 * command tree's descriptions, before @effect/cli parses anything: its own help prints every
 * command's full usage on one line and colours pipes. Reads only the descriptors, so asking for help
 * loads no handler.
 */
import { CliConfig, Command, HelpDoc, ValidationError } from "@effect/cli"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import { Config, Console, Effect, HashMap, Option } from "effect"
import { readCommandHelp } from "./Doc.ts"
import { type Program, renderCommand, renderProgram, type Style } from "./Render.ts"

const CONFIG = CliConfig.make({ showBuiltIns: false })

/** What the arguments ask help for: none, the program's, or a command's (by name). */
export const helpRequest = (argv: ReadonlyArray<string>, commands: ReadonlyArray<string>): Option.Option<Option.Option<string>> => {
  const end = argv.indexOf("--")
  const args = end === -1 ? argv : argv.slice(0, end)
  if (args.length === 0) return Option.some(Option.none())
  if (!args.some((arg) => arg === "--help" || arg === "-h")) return Option.none()
  return Option.some(Option.fromNullable(args.find((arg) => commands.includes(arg))))
}

/** Wrapped at the terminal's width (80 off a terminal), in colour only on a terminal without NO_COLOR. */
const terminalStyle: Effect.Effect<Style> = Effect.gen(function* () {
  const tty = process.stdout.isTTY === true
  const noColor = yield* Config.string("NO_COLOR").pipe(Config.withDefault(""), Effect.orElseSucceed(() => ""))
  const columns = process.stdout.columns
  return { width: tty && columns !== undefined && columns >= 40 ? columns : 80, colour: tty && noColor === "" }
})

const firstParagraph = (doc: HelpDoc.HelpDoc) => readCommandHelp(doc).description[0] ?? ""

const render = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, program: Program, target: Option.Option<string>, style: Style) => {
  const subcommands = Command.getSubcommands(root)
  return Option.match(Option.flatMap(target, (name) => HashMap.get(subcommands, name)), {
    onNone: () =>
      renderProgram(
        program,
        [...HashMap.entries(subcommands)]
          .map(([name, command]) => ({ name, summary: firstParagraph(Descriptor.getHelp(command, CONFIG)) }))
          .sort((a, b) => order(a.name) - order(b.name)),
        style
      ),
    onSome: (command) => renderCommand(`${program.name} ${Option.getOrElse(target, () => "")}`, readCommandHelp(Descriptor.getHelp(command, CONFIG)), style)
  })
}

// The order a new user meets the commands in; any command not named here comes after, by name.
const ORDER = ["run", "validate", "retry", "watch", "approve", "reject", "batches", "summary", "ledger", "resume", "resolve", "reconcile", "halt", "workers", "wallet", "transactions", "status", "config", "sandbox"]
const order = (name: string) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length + name.charCodeAt(0))

/** Prints the help the arguments ask for and succeeds with true, or succeeds with false. */
export const answerHelp = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, program: Program, argv: ReadonlyArray<string>) => {
  const names = [...HashMap.keys(Command.getSubcommands(root))]
  return Option.match(helpRequest(argv, names), {
    onNone: () => Effect.succeed(false),
    onSome: (target) => Effect.flatMap(terminalStyle, (style) => Effect.as(Console.log(render(root, program, target, style)), true))
  })
}

// Built-ins of @effect/cli we offer. Not --wizard: it asks for a whole command interactively, is not
// in our help, and under a script waits on stdin for ever; typed, it is an unknown option.
const BUILT_IN = ["--help", "-h", "--version", "--completions", "--log-level"]
const REFUSED_BUILT_IN = ["--wizard"]

/**
 * Fails as @effect/cli fails on an unknown option when the arguments name a built-in we do not offer,
 * before @effect/cli would act on it (`report` then names it: `payouts: unknown option --wizard`).
 */
export const refuseBuiltIns = (argv: ReadonlyArray<string>): Effect.Effect<void, ValidationError.ValidationError> => {
  const end = argv.indexOf("--")
  const refused = (end === -1 ? argv : argv.slice(0, end)).find((arg) => REFUSED_BUILT_IN.includes(arg.split("=")[0]))
  return refused === undefined ? Effect.void : Effect.fail(ValidationError.invalidArgument(HelpDoc.p(`unknown option ${refused}`)))
}

/**
 * The first `--flag` the command does not know, if any: @effect/cli may report it as a stray
 * argument (or take it for a FILE), and a person wants to hear which option was wrong.
 */
export const strayOption = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, argv: ReadonlyArray<string>): string | undefined => {
  const end = argv.indexOf("--")
  const args = end === -1 ? argv : argv.slice(0, end)
  const subcommands = Command.getSubcommands(root)
  const command = Option.flatMap(Option.fromNullable(args.find((arg) => HashMap.has(subcommands, arg))), (name) => HashMap.get(subcommands, name))
  const known = new Set([
    ...BUILT_IN,
    ...Option.match(command, {
      onNone: () => [],
      onSome: (descriptor) => readCommandHelp(Descriptor.getHelp(descriptor, CONFIG)).options.flatMap((option) => option.term.split(/[ ,]+/).filter((word) => word.startsWith("-")))
    })
  ])
  return args.map((arg) => arg.split("=")[0]).find((arg) => /^--?[A-Za-z]/.test(arg) && !known.has(arg))
}
