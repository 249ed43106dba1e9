/**
 * Plain aligned tables for people; `--json` is the format for scripts.
 */
import { fromWire } from "../domain/Money.ts"
import { DEFAULT_LOCALE, type Format, formatFor } from "../output/Format.ts"
import { blankControl } from "../domain/Text.ts"
import { wrap } from "./help/Render.ts"
import { screenWidth } from "./Screen.ts"

export interface Column<A> {
  readonly header: string
  readonly value: (row: A) => string
  readonly align?: "left" | "right"
  /** May be left out when the table is wider than the screen (without --wide): the highest first. */
  readonly drop?: number
  /** May be cut short (…) when the table is still too wide. */
  readonly shrink?: boolean
}

/** How wide the table may be; `wide` (--wide): every column, whole. */
export interface Fit {
  readonly width: number
  readonly wide: boolean
}

/** The screen's width (Screen.ts); `wide`: every column whatever it is. */
export const screenFit = (wide: boolean): Fit => ({ width: screenWidth(), wide })

const MIN_CUT = 8

/** Aligned columns under UPPERCASE headers; with a `fit`, columns left out or cut to fit it, and a line saying so. */
export const renderTable = <A>(columns: ReadonlyArray<Column<A>>, rows: ReadonlyArray<A>, fit?: Fit): string => {
  let shown = columns.map((column) => ({ column, cells: rows.map((row) => clean(column.value(row))) }))
  type Shown = (typeof shown)[number]
  const widthOf = (x: Shown) => Math.max(x.column.header.length, ...x.cells.map((cell) => cell.length))
  const total = () => shown.reduce((sum, x) => sum + widthOf(x), 0) + 2 * (shown.length - 1)
  const left: Array<string> = []
  if (fit !== undefined && !fit.wide) {
    // A column with nothing to say (every cell 0 or -) goes before any other.
    const blank = (x: Shown) => (x.cells.every((cell) => cell === "0" || cell === "-") ? 1 : 0)
    const droppable = shown.filter((x) => x.column.drop !== undefined).sort((a, b) => blank(b) - blank(a) || b.column.drop! - a.column.drop!)
    for (const x of droppable) {
      if (total() <= fit.width) break
      shown = shown.filter((y) => y !== x)
      left.push(x.column.header.toLowerCase())
    }
    for (const x of shown.filter((y) => y.column.shrink === true)) {
      const excess = total() - fit.width
      if (excess <= 0) break
      const room = Math.max(MIN_CUT, widthOf(x) - excess, x.column.header.length)
      x.cells = x.cells.map((cell) => (cell.length > room ? `${cell.slice(0, room - 1)}…` : cell))
    }
  }
  const widths = shown.map(widthOf)
  const render = (line: ReadonlyArray<string>) =>
    line
      .map((cell, i) => (shown[i].column.align === "right" ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join("  ")
      .trimEnd()
  const table = [render(shown.map((x) => x.column.header.toUpperCase())), ...rows.map((_, r) => render(shown.map((x) => x.cells[r])))].join("\n")
  if (left.length === 0 || fit === undefined) return table
  return [table, ...wrap(`(left out to fit: ${left.join(", ")}; --wide shows every column)`, fit.width, 0)].join("\n")
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

export const column = <A>(header: string, value: (row: A) => string, align: "left" | "right" = "left", fitting: Pick<Column<A>, "drop" | "shrink"> = {}): Column<A> => ({
  header,
  value,
  align,
  ...fitting
})

export const orDash = (value: string | null | undefined): string => (value === null || value === undefined || value === "" ? "-" : value)

// Control characters from the service must not reach the terminal.
const clean = blankControl
