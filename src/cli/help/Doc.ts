/**
 * Reads @effect/cli's help documents (HelpDoc) into what a person needs: a command's description, its
 * arguments and its options, each with its meaning and default. The library's own wording ("A
 * user-defined piece of text.", "This setting is optional.") says nothing about an option, so it is
 * dropped here; the description, with the default help/Defaults.ts adds to it, is what is kept.
 */
import type { HelpDoc } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"

export interface Entry {
  /** How it is written on the command line: `--concurrency N`, `FILE`. */
  readonly term: string
  /** What it means, its default included (help/Defaults.ts writes it there). */
  readonly meaning: ReadonlyArray<string>
  /** An argument with a default or an optional option may be left out. */
  readonly optional: boolean
}

export interface CommandHelp {
  readonly description: ReadonlyArray<string>
  readonly args: ReadonlyArray<Entry>
  readonly options: ReadonlyArray<Entry>
}

export const spanText = (span: Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

type Block = Exclude<HelpDoc.HelpDoc, HelpDoc.Sequence | HelpDoc.Empty>

const blocks = (doc: HelpDoc.HelpDoc): Array<Block> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Sequence":
      return [...blocks(doc.left), ...blocks(doc.right)]
    default:
      return [doc]
  }
}

/** Every paragraph of a document as plain text, in order. */
export const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> =>
  blocks(doc).flatMap((block) => {
    switch (block._tag) {
      case "Header":
      case "Paragraph":
        return [spanText(block.value)]
      case "Enumeration":
        return block.elements.flatMap(paragraphs)
      case "DescriptionList":
        return block.definitions.flatMap(([term, body]) => [spanText(term), ...paragraphs(body)])
    }
  })

/** The library's words about a value's type or optionality: not a meaning. */
const BOILERPLATE = [
  /^An? (user-defined piece of text|true or false value|floating point number|integer|date without a time-zone)\b/,
  /^An? (existing )?(file|directory|file or directory)\b/,
  /^One of the following: /,
  /^This (option|argument) can be set from environment variables\.$/
]

const OPTIONAL = /^This setting is optional\./

/** `--time-scale float` reads `--time-scale NUMBER`: the value's kind, as the manual writes it. */
const PSEUDO_NAMES: Record<string, string> = { float: "NUMBER", integer: "N", text: "TEXT", redacted: "SECRET", directory: "DIR", file: "FILE", path: "PATH", date: "DATE" }

const termOf = (span: Span): string =>
  spanText(span)
    .replace(/^<(.*)>$/, "$1")
    // An option with a short alias reads `(-o, --out directory)`.
    .replace(/^\((-\w, --.*)\)$/, "$1")
    .replace(/ (float|integer|text|redacted|directory|file|path|date)$/, (_, kind: string) => ` ${PSEUDO_NAMES[kind]}`)
    .replace(/ ((?:[\w-]+ \| )+[\w-]+)$/, (_, choices: string) => ` ${choices.replaceAll(" | ", "|")}`)

const entry = ([term, body]: readonly [Span, HelpDoc.HelpDoc]): Entry => {
  const texts = paragraphs(body)
  return {
    term: termOf(term),
    meaning: texts.filter((text) => !OPTIONAL.test(text) && !BOILERPLATE.some((pattern) => pattern.test(text))),
    optional: texts.some((text) => OPTIONAL.test(text))
  }
}

/** A command's help document (`Command.getHelp`) read section by section. */
export const readCommandHelp = (doc: HelpDoc.HelpDoc): CommandHelp => {
  const help = { description: new Array<string>(), args: new Array<Entry>(), options: new Array<Entry>() }
  let section = ""
  for (const block of blocks(doc)) {
    if (block._tag === "Header") section = spanText(block.value)
    else if (section === "DESCRIPTION") help.description.push(...paragraphs(block))
    else if (block._tag === "DescriptionList" && section === "ARGUMENTS") help.args.push(...block.definitions.map(entry))
    else if (block._tag === "DescriptionList" && section === "OPTIONS") help.options.push(...block.definitions.map(entry))
  }
  return help
}

/**
 * An argument error (@effect/cli's HelpDoc) as one line. A stray `--flag` where a FILE is expected is
 * reported by the library as a missing path: it is an unknown option.
 */
export const usageMessage = (doc: HelpDoc.HelpDoc): string => {
  const text = paragraphs(doc).join(" ").replace(/\s+/g, " ").trim()
  const unknown = /^Received unknown argument: '(.*)'$/.exec(text) ?? /^Path '(-.*)' must exist$/.exec(text)
  return unknown === null ? text : `unknown option or argument: ${unknown[1]}`
}

// How @effect/cli reports a fallback Config that failed: `(Invalid data at PAYOUTS_RATE: "why")`.
const INVALID_VARIABLE = /Invalid data at (PAYOUTS_[A-Z0-9_]+): "(.*)"\)?$/

/** Config's own wording, said as our settings say it elsewhere (a profile's check, the flags). */
const plainWhy = (why: string) =>
  why
    .replace(/^Expected one of \((.*)\) but received ".*"$/, "must be one of $1")
    .replace(/^Expected an? (integer|number) value but received ".*"$/, (_, kind: string) => (kind === "integer" ? "must be a whole number" : "must be a number"))
    .replace(/^".*" is not a duration/, "not a duration")

/**
 * A setting of the environment (or of the selected profile, under it) that does not parse: its
 * variable and why, in our words (Failure.ts adds the value); undefined for any other argument error.
 */
export const variableProblem = (doc: HelpDoc.HelpDoc): { readonly variable: string; readonly why: string } | undefined => {
  const found = INVALID_VARIABLE.exec(paragraphs(doc).join(" ").replace(/\s+/g, " ").trim())
  return found === null ? undefined : { variable: found[1], why: plainWhy(found[2]) }
}
