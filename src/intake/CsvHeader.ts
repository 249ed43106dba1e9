/**
 * The header row: names are matched case-insensitively, trimmed, with spaces and hyphens read as
 * underscores ("Phone Number" is phone_number), against the columns and aliases of DESIGN.md section 5.
 */
import { Either } from "effect"
import { visible } from "../domain/Text.ts"
import { CsvHeaderError, type HeaderProblem } from "./CsvErrors.ts"

export const CSV_COLUMNS = ["id", "amount", "currency", "operator", "phone", "name", "email", "description"] as const
export type CsvColumn = (typeof CSV_COLUMNS)[number]

export const REQUIRED_COLUMNS: ReadonlyArray<CsvColumn> = ["amount", "currency", "operator", "phone", "name", "email"]

export const COLUMN_ALIASES: Readonly<Record<CsvColumn, ReadonlyArray<string>>> = {
  id: ["id", "payout_id", "external_id"],
  amount: ["amount"],
  currency: ["currency"],
  operator: ["operator"],
  phone: ["phone", "phoneNumber", "phone_number", "msisdn"],
  name: ["name", "customer_name", "recipient_name"],
  email: ["email", "customer_email"],
  description: ["description", "reason"]
}

export const META_PREFIX = "meta."

/** Columns a header may have: the 8 named ones and room for many `meta.*` details, not a runaway export. */
export const MAX_COLUMNS = 256

/** `found` when the header was split into cells; the raw reader stops counting at the first column too many. */
export const tooManyColumns = (found?: number): CsvHeaderError =>
  new CsvHeaderError({
    problems: [{
      column: `column ${MAX_COLUMNS + 1}`,
      value: "",
      reason: `too many columns: the header has ${found ?? `more than ${MAX_COLUMNS}`}, at most ${MAX_COLUMNS} are allowed`
    }]
  })

export const normaliseHeaderName = (raw: string): string => raw.trim().toLowerCase().replace(/[\s-]+/g, "_")

const byAlias = new Map<string, CsvColumn>(
  CSV_COLUMNS.flatMap((column) => COLUMN_ALIASES[column].map((alias) => [normaliseHeaderName(alias), column] as const))
)

/** What each position of a record holds. */
export type HeaderSlot =
  | { readonly _tag: "Column"; readonly column: CsvColumn; readonly header: string }
  | { readonly _tag: "Meta"; readonly key: string; readonly header: string }
  | { readonly _tag: "Unnamed"; readonly position: number }

export interface CsvHeader {
  readonly slots: ReadonlyArray<HeaderSlot>
  readonly delimiter: string
}

const quoted = (text: string): string => JSON.stringify(visible(text))

const ALIASES_ONLY = CSV_COLUMNS.flatMap((column) => COLUMN_ALIASES[column].filter((alias) => alias !== column))
const EXPECTED = `expected ${CSV_COLUMNS.join(", ")} (or ${ALIASES_ONLY.join(", ")}), or meta.<key> for payout details`

const describeColumn = (column: CsvColumn): string => {
  const aliases = COLUMN_ALIASES[column].filter((alias) => alias !== column)
  return aliases.length === 0 ? quoted(column) : `${quoted(column)} (or ${aliases.join(", ")})`
}

const OTHER_SEPARATORS = [["\t", "tab-separated"], ["|", "pipe-separated (|)"]] as const

/**
 * A header that is one cell (no comma, no semicolon) but splits at tabs or pipes into known column
 * names: a spreadsheet's other export. Its name, to refuse the file for what it is.
 */
const otherSeparator = (names: ReadonlyArray<string>): string | undefined => {
  if (names.length !== 1) return undefined
  for (const [separator, what] of OTHER_SEPARATORS) {
    const parts = names[0].split(separator)
    const known = parts.filter((p) => byAlias.has(normaliseHeaderName(p)) || p.trim().toLowerCase().startsWith(META_PREFIX))
    if (parts.length > 1 && known.length >= 2) return what
  }
  return undefined
}

/** Maps the header row to slots; every problem of the header is reported at once. */
export const resolveHeader = (
  names: ReadonlyArray<string>,
  delimiter: string
): Either.Either<CsvHeader, CsvHeaderError> => {
  if (names.length > MAX_COLUMNS) return Either.left(tooManyColumns(names.length))
  const separated = otherSeparator(names)
  if (separated !== undefined) {
    const reason = `the file is ${separated}: payouts reads comma- or semicolon-separated files (save it as CSV)`
    return Either.left(new CsvHeaderError({ problems: [{ column: "", value: "", reason }] }))
  }
  const problems: Array<HeaderProblem> = []
  const seen = new Map<string, string>()
  const slots = names.map((raw, position): HeaderSlot => {
    const header = raw.trim()
    if (header === "") return { _tag: "Unnamed", position }
    const claim = (key: string, what: string) => {
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        problems.push({
          column: header,
          value: raw,
          reason:
            normaliseHeaderName(earlier) === normaliseHeaderName(header)
              ? `duplicate column ${quoted(header)}`
              : `columns ${quoted(earlier)} and ${quoted(header)} both give ${what}`
        })
      } else {
        seen.set(key, header)
      }
    }
    if (header.toLowerCase().startsWith(META_PREFIX)) {
      const key = header.slice(META_PREFIX.length).trim()
      if (key === "") problems.push({ column: header, value: raw, reason: `column ${quoted(header)} needs a key after "meta."` })
      else claim(`meta:${key}`, `payout detail ${quoted(key)}`)
      return { _tag: "Meta", key, header }
    }
    const column = byAlias.get(normaliseHeaderName(header))
    if (column === undefined) {
      problems.push({ column: header, value: raw, reason: `unknown column ${quoted(header)}: ${EXPECTED}` })
      return { _tag: "Unnamed", position }
    }
    claim(column, column)
    return { _tag: "Column", column, header }
  })
  for (const column of REQUIRED_COLUMNS) {
    if (!seen.has(column)) problems.push({ column, value: "", reason: `missing required column ${describeColumn(column)}` })
  }
  return problems.length === 0
    ? Either.right({ slots, delimiter })
    : Either.left(new CsvHeaderError({ problems }))
}
