/**
 * `payouts --help`, `payouts COMMAND --help` (or `-h`, or no arguments at all) answered from the
 * command tree's descriptions, before @effect/cli parses anything: its own help prints every
 * command's full usage on one line and colours pipes. Reads only the descriptors, so asking for help
 * loads no handler.
 */
import { CliConfig, Command, HelpDoc, ValidationError } from "@effect/cli"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import { Config, Console, Effect, HashMap, Option } from "effect"
import { optionWords } from "../Argv.ts"
import { screenWidth } from "../Screen.ts"
import { type CommandHelp, type Entry, readCommandHelp } from "./Doc.ts"
import { type CommandPage, type Program, renderCommand, renderProgram, renderTopic, type Style, type TopicPage } from "./Render.ts"
import { DAILY, EXAMPLES, GROUPS, MANUAL, type Topic, topicOf, TOPICS } from "./Topics.ts"

const CONFIG = CliConfig.make({ showBuiltIns: false })

/**
 * What the arguments ask help for: none, the program's, or a command's or a topic's (by name).
 * `payouts help [NAME]` asks as `payouts [NAME] --help` does.
 */
export const helpRequest = (argv: ReadonlyArray<string>, names: ReadonlyArray<string>): Option.Option<Option.Option<string>> => {
  const args = optionWords(argv)
  if (args.length === 0) return Option.some(Option.none())
  if (args[0] === "help") return Option.some(Option.fromNullable(args.slice(1).find((arg) => names.includes(arg))))
  if (!args.some((arg) => arg === "--help" || arg === "-h")) return Option.none()
  return Option.some(Option.fromNullable(args.find((arg) => names.includes(arg))))
}

/** Wrapped at the terminal's width (100 off a terminal), in colour only on a terminal without NO_COLOR. */
const terminalStyle: Effect.Effect<Style> = Effect.gen(function* () {
  const noColor = yield* Config.string("NO_COLOR").pipe(Config.withDefault(""), Effect.orElseSucceed(() => ""))
  return { width: screenWidth(), colour: process.stdout.isTTY === true && noColor === "" }
})

const longName = (entry: Entry) => entry.term.split(/[ ,]+/).find((word) => word.startsWith("--")) ?? entry.term

type Descriptors = HashMap.HashMap<string, Descriptor.Command<unknown>>

const helpOf = (subcommands: Descriptors, name: string) =>
  Option.map(HashMap.get(subcommands, name), (command) => readCommandHelp(Descriptor.getHelp(command, CONFIG)))

/** A command's page: its own options and the shared ones it is used with daily; the others by topic. */
const commandPage = (program: Program, name: string, help: CommandHelp): CommandPage => {
  const daily = DAILY[name] ?? []
  const shown = help.options.filter((option) => {
    const topic = topicOf(longName(option))
    return topic === undefined || (topic.name !== "options" && daily.includes(longName(option)))
  })
  const topics = TOPICS.filter((topic) => help.options.some((option) => topic.options.includes(longName(option)) && !shown.includes(option)))
  // config takes every setting to show what it would do: named once, not explained again.
  const previews = shown.filter((option) => option.meaning.join(" ").startsWith("See what "))
  const manual = MANUAL[name]
  return {
    path: `${program.name} ${name}`,
    help: { ...help, description: help.description.slice(0, 1), options: shown.filter((option) => !previews.includes(option)) },
    examples: EXAMPLES[name] ?? [],
    pointers: [
      ...(previews.length > 0 ? [`Also takes, to show what it would do: ${previews.map(longName).join(", ")}.`] : []),
      ...(topics.length > 0 ? [`Also takes: ${topics.map((topic) => `${topic.title.split(" (")[0].toLowerCase()} (${program.name} help ${topic.name})`).join("; ")}.`] : []),
      ...(manual === undefined ? [] : [`Manual: ${manual}.`])
    ]
  }
}

/** A topic's page: each of its options as the first command that takes it explains it. */
const topicPage = (subcommands: Descriptors, topic: Topic): TopicPage => {
  const known = new Map<string, Entry>()
  for (const group of GROUPS) {
    for (const [name] of group.commands) {
      for (const option of Option.match(helpOf(subcommands, name), { onNone: () => [], onSome: (help) => help.options })) {
        if (!known.has(longName(option))) known.set(longName(option), option)
      }
    }
  }
  return { title: topic.title, intro: topic.intro, options: topic.options.flatMap((option) => known.get(option) ?? []), more: topic.more ?? [] }
}

const render = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, program: Program, target: Option.Option<string>, style: Style) => {
  const subcommands = Command.getSubcommands(root) as Descriptors
  const name = Option.getOrElse(target, () => "")
  const topic = TOPICS.find((t) => t.name === name)
  if (topic !== undefined) return renderTopic(topicPage(subcommands, topic), style)
  return Option.match(helpOf(subcommands, name), {
    onNone: () => renderProgram(program, GROUPS, style),
    onSome: (help) => renderCommand(commandPage(program, name, help), style)
  })
}

/** Prints the help the arguments ask for and succeeds with true, or succeeds with false. */
export const answerHelp = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, program: Program, argv: ReadonlyArray<string>) => {
  const names = [...HashMap.keys(Command.getSubcommands(root)), ...TOPICS.map((topic) => topic.name)]
  return Option.match(helpRequest(argv, names), {
    onNone: () => Effect.succeed(false),
    onSome: (target) => Effect.flatMap(terminalStyle, (style) => Effect.as(Console.log(render(root, program, target, style)), true))
  })
}

const completionsOf = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, shell: string) => {
  switch (shell) {
    case "fish":
      return Command.getFishCompletions(root, "payouts")
    case "zsh":
      return Command.getZshCompletions(root, "payouts")
    default:
      return Command.getBashCompletions(root, "payouts")
  }
}

/**
 * `--completions SHELL` answered as @effect/cli writes it, less `--wizard`, which is refused when
 * typed (below): a completion must not offer what the command then rejects.
 */
export const answerCompletions = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, argv: ReadonlyArray<string>) => {
  const args = optionWords(argv)
  const at = args.indexOf("--completions")
  const shell = at === -1 ? undefined : args[at + 1]
  if (shell === undefined || !["sh", "bash", "fish", "zsh"].includes(shell)) return Effect.succeed(false)
  return completionsOf(root, shell).pipe(
    Effect.map((lines) => lines.filter((line) => !/'--wizard\[|-l wizard\b/.test(line)).map((line) => line.replaceAll(" --wizard", ""))),
    Effect.flatMap((lines) => Console.log(lines.join("\n"))),
    Effect.as(true)
  )
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
  const refused = optionWords(argv).find((arg) => REFUSED_BUILT_IN.includes(arg.split("=")[0]))
  return refused === undefined ? Effect.void : Effect.fail(ValidationError.invalidArgument(HelpDoc.p(`unknown option ${refused}`)))
}

/**
 * The first `--flag` the command does not know, if any: @effect/cli may report it as a stray
 * argument (or take it for a FILE), and a person wants to hear which option was wrong.
 */
export const strayOption = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, argv: ReadonlyArray<string>): string | undefined => {
  const args = optionWords(argv)
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
