/**
 * Cells of the files we write, safe to open in a spreadsheet (DESIGN.md section 9): a plain number
 * stays a number; any other cell that a spreadsheet could read as a formula gets a leading quote.
 */
const PLAIN_NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/
// eslint-disable-next-line no-control-regex
const FORMULA_START = /^[=+\-@\t\r\n\u0000]/
const NEEDS_QUOTES = /[",;\r\n]|^\s|\s$/

export const neutraliseFormula = (value: string): string =>
  PLAIN_NUMBER.test(value) || !FORMULA_START.test(value) ? value : `'${value}`

/** RFC 4180 quoting; also quotes cells with ";" or edge white space, for spreadsheets that guess. */
export const quoteCsv = (value: string): string => (NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, "\"\"")}"` : value)

export const escapeCell = (value: string): string => quoteCsv(neutraliseFormula(value))

export const csvLine = (cells: ReadonlyArray<string>): string => `${cells.map(escapeCell).join(",")}\n`

/** At most `max` characters (code points), the last one "…" when cut. */
export const cutText = (value: string, max: number): string => {
  if (value.length <= max) return value
  const points = Array.from(value)
  return points.length <= max ? value : `${points.slice(0, max - 1).join("")}…`
}
