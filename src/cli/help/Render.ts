/**
 * Help as text for a person: wrapped at the terminal's width, each option with its meaning and its
 * default, bold headings only where colour is wanted (a terminal, NO_COLOR unset). Pure: the caller
 * says how wide and whether in colour.
 */
import type { CommandHelp, Entry } from "./Doc.ts"

export interface Style {
  readonly width: number
  readonly colour: boolean
}

/** Words filled into lines of at most `width - indent` characters; a longer word is cut. */
export const wrap = (text: string, width: number, indent: number): Array<string> => {
  const room = Math.max(width - indent, 20)
  const pad = " ".repeat(indent)
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    for (let rest = word; rest !== "";) {
      const piece = rest.length > room ? rest.slice(0, room) : rest
      rest = rest.slice(piece.length)
      if (line === "") line = piece
      else if (line.length + 1 + piece.length <= room) line = `${line} ${piece}`
      else {
        lines.push(pad + line)
        line = piece
      }
    }
  }
  if (line !== "") lines.push(pad + line)
  return lines
}

const bold = (style: Style, text: string) => (style.colour ? `\x1b[1m${text}\x1b[0m` : text)

const heading = (style: Style, title: string) => bold(style, title)

const meaningOf = (entry: Entry): string => entry.meaning.join(" ")

/** Short terms in a column beside their meaning; the meaning wraps under itself. */
const table = (style: Style, rows: ReadonlyArray<readonly [string, string]>, widest = Math.max(...rows.map(([term]) => term.length))): Array<string> => {
  const column = Math.min(widest + 4, Math.floor(style.width / 3))
  return rows.flatMap(([term, meaning]) => {
    const body = wrap(meaning, style.width, column)
    if (2 + term.length + 2 > column) return [bold(style, `  ${term}`), ...body]
    const first = body[0] ?? ""
    return [`  ${bold(style, term)}${" ".repeat(column - 2 - term.length)}${first.slice(column)}`, ...body.slice(1)]
  })
}

export interface Program {
  readonly name: string
  readonly version: string
  readonly description: string
}

export interface ListedGroup {
  readonly title: string
  readonly commands: ReadonlyArray<readonly [string, string]>
}

const PROGRAM_OPTIONS: ReadonlyArray<readonly [string, string]> = [
  ["-h, --help", "This help; payouts help COMMAND for a command's."],
  ["--version", "Print the version."],
  ["--completions SHELL", "Print a completion script for bash, zsh, fish or sh."],
  ["--log-level LEVEL", "Log lines from LEVEL up: all, trace, debug, info, warning, error, fatal, none."],
  ["--utc", "Show times in UTC (2026-11-23T09:14:05Z) instead of the local zone."]
]

export const renderProgram = (program: Program, groups: ReadonlyArray<ListedGroup>, style: Style): string =>
  [
    ...wrap(`${program.name} ${program.version}: ${program.description}`, style.width, 0),
    "",
    `${heading(style, "Usage:")} ${program.name} COMMAND [OPTIONS] [ARGUMENTS]`,
    // One column for every group: the summaries line up down the page.
    ...groups.flatMap((group) => ["", heading(style, `${group.title}:`), ...table(style, group.commands, Math.max(...groups.flatMap((g) => g.commands.map(([name]) => name.length))))]),
    "",
    heading(style, "Options:"),
    ...table(style, PROGRAM_OPTIONS),
    "",
    ...wrap(`${program.name} COMMAND --help shows a command's options and examples; ${program.name} help options, help checks and help tuning the options commands share. Every setting can also come from the environment variable its help names.`, style.width, 0)
  ].join("\n")

const usage = (path: string, help: CommandHelp) =>
  [path, ...(help.options.length > 0 ? ["[OPTIONS]"] : []), ...help.args.map((arg) => (arg.optional ? `[${arg.term}]` : arg.term))].join(" ")

export interface CommandPage {
  readonly path: string
  readonly help: CommandHelp
  /** Lines of `command  # what it does`. */
  readonly examples: ReadonlyArray<string>
  /** Closing lines: the shared options it takes (by topic) and its page of the manual. */
  readonly pointers: ReadonlyArray<string>
}

const entries = (options: ReadonlyArray<Entry>) => options.map((option) => [option.term, meaningOf(option)] as const)

export const renderCommand = (page: CommandPage, style: Style): string =>
  [
    ...wrap(`${heading(style, "Usage:")} ${usage(page.path, page.help)}`, style.width + (style.colour ? 8 : 0), 0),
    "",
    ...page.help.description.flatMap((text) => wrap(text, style.width, 0)),
    ...(page.help.args.length > 0 ? ["", heading(style, "Arguments:"), ...table(style, entries(page.help.args))] : []),
    ...(page.help.options.length > 0 ? ["", heading(style, "Options:"), ...table(style, entries(page.help.options))] : []),
    ...(page.examples.length > 0 ? ["", heading(style, "Examples:"), ...page.examples.map((line) => `  ${line}`)] : []),
    ...(page.pointers.length > 0 ? ["", ...page.pointers.flatMap((line) => wrap(line, style.width, 0))] : [])
  ].join("\n")

export interface TopicPage {
  readonly title: string
  readonly intro: string
  readonly options: ReadonlyArray<Entry>
  readonly more: ReadonlyArray<string>
}

export const renderTopic = (page: TopicPage, style: Style): string =>
  [
    heading(style, page.title),
    "",
    ...wrap(page.intro, style.width, 0),
    "",
    ...table(style, entries(page.options)),
    ...(page.more.length > 0 ? ["", ...page.more.flatMap((line) => wrap(line, style.width, 0))] : [])
  ].join("\n")
