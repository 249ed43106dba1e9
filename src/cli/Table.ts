/**
 * Plain aligned tables for people; `--json` is the format for scripts.
 */
import { fromWire } from "../domain/Money.ts"
import { DEFAULT_LOCALE, type Format, formatFor } from "../output/Format.ts"
import { blankControl } from "../domain/Text.ts"

export interface Column<A> {
  readonly header: string
  readonly value: (row: A) => string
  readonly align?: "left" | "right"
}

export const renderTable = <A>(columns: ReadonlyArray<Column<A>>, rows: ReadonlyArray<A>): string => {
  const cells = rows.map((row) => columns.map((column) => clean(column.value(row))))
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i].length)))
  const render = (line: ReadonlyArray<string>) =>
    line
      .map((cell, i) => (columns[i].align === "right" ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join("  ")
      .trimEnd()
  return [render(columns.map((column) => column.header)), ...cells.map(render)].join("\n")
}

/** Label/value pairs, labels aligned. */
export const renderRecord = (pairs: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...pairs.map(([label]) => label.length))
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width + 1)}  ${clean(value)}`).join("\n")
}

/** Separators of en-US where a caller has not read the user's locale (output/Format.ts userFormat). */
export const defaultFormat: Format = formatFor(DEFAULT_LOCALE)

/** A wire amount (major units) with the currency's digits and separators: 1250.5 USD -> "1,250.50". */
export const amount = (value: number, currency: string, format: Format = defaultFormat): string => format.minor(fromWire(value, currency), currency)

export const column = <A>(header: string, value: (row: A) => string, align: "left" | "right" = "left"): Column<A> => ({
  header,
  value,
  align
})

export const orDash = (value: string | null | undefined): string => (value === null || value === undefined || value === "" ? "-" : value)

// Control characters from the service must not reach the terminal.
const clean = blankControl
