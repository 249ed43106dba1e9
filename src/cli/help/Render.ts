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

/** A term, then its meaning indented below it (wrapped), as in a manual page. */
const definition = (style: Style, term: string, meaning: string): Array<string> => [
  ...wrap(term, style.width, 2).map((line) => bold(style, line)),
  ...wrap(meaning, style.width, 6)
]

/** Short terms in a column beside their meaning; the meaning wraps under itself. */
const table = (style: Style, rows: ReadonlyArray<readonly [string, string]>): Array<string> => {
  const column = Math.min(Math.max(...rows.map(([term]) => term.length)) + 4, Math.floor(style.width / 3))
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

export interface Listed {
  readonly name: string
  readonly summary: string
}

const GLOBAL_OPTIONS: ReadonlyArray<readonly [string, string]> = [
  ["-h, --help", "Show this help; `payouts COMMAND --help` shows a command's options."],
  ["--version", "Print the version."],
  ["--completions SHELL", "Print a completion script for sh, bash, fish or zsh (see the README)."],
  ["--log-level LEVEL", "Show log lines from this level up: all, trace, debug, info, warning, error, fatal, none."]
]

export const renderProgram = (program: Program, commands: ReadonlyArray<Listed>, style: Style): string =>
  [
    ...wrap(`${program.name} ${program.version}: ${program.description}`, style.width, 0),
    "",
    `${heading(style, "Usage:")} ${program.name} COMMAND [OPTIONS] [ARGUMENTS]`,
    "",
    heading(style, "Commands:"),
    ...table(style, commands.map((command) => [command.name, command.summary] as const)),
    "",
    heading(style, "Options:"),
    ...table(style, GLOBAL_OPTIONS),
    "",
    ...wrap(`Run \`${program.name} COMMAND --help\` for the options of a command. Every setting can also come from the environment variable its help names.`, style.width, 0)
  ].join("\n")

const usage = (path: string, help: CommandHelp) =>
  [path, ...(help.options.length > 0 ? ["[OPTIONS]"] : []), ...help.args.map((arg) => (arg.optional ? `[${arg.term}]` : arg.term))].join(" ")

export const renderCommand = (path: string, help: CommandHelp, style: Style): string =>
  [
    ...wrap(`${heading(style, "Usage:")} ${usage(path, help)}`, style.width + (style.colour ? 8 : 0), 0),
    "",
    ...help.description.flatMap((text) => wrap(text, style.width, 0)),
    ...(help.args.length > 0 ? ["", heading(style, "Arguments:"), ...help.args.flatMap((arg) => definition(style, arg.term, meaningOf(arg)))] : []),
    ...(help.options.length > 0 ? ["", heading(style, "Options:"), ...help.options.flatMap((option) => definition(style, option.term, meaningOf(option)))] : [])
  ].join("\n")
