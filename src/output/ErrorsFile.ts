/**
 * Row errors: the `<name>.errors.csv` file (line, column, value, reason) and the same errors for a
 * person on stderr. Every error names the line, the column and the reason.
 */
import type { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { type Effect, Stream } from "effect"
import { csvLine, cutText } from "./CsvCells.ts"
import { writeFileAtomic } from "./AtomicFile.ts"
import type { RowError } from "../intake/RowError.ts"
import { escapeControl, visible } from "../domain/Text.ts"

export const ERRORS_COLUMNS = ["line", "column", "value", "reason"] as const
export const MAX_VALUE_CHARS = 100

export const errorCells = (error: RowError): ReadonlyArray<string> => [
  error.line === undefined ? "" : String(error.line),
  error.column,
  // Invisible characters written `<U+XXXX>`: the value shows what a person could not see in the cell.
  visible(cutText(error.value, MAX_VALUE_CHARS)),
  error.reason
]

export const errorsText = <E, R>(errors: Stream.Stream<RowError, E, R>): Stream.Stream<string, E, R> =>
  Stream.concat(Stream.make(csvLine(ERRORS_COLUMNS)), Stream.map(errors, (error) => csvLine(errorCells(error))))

export const writeErrorsFile = <E, R>(
  path: string,
  errors: Stream.Stream<RowError, E, R>
): Effect.Effect<void, E | PlatformError, FileSystem.FileSystem | R> => writeFileAtomic(path, errorsText(errors))

const printable = (value: string): string => JSON.stringify(cutText(value, MAX_VALUE_CHARS))

/** `orders.csv line 4, column "amount": reason (value "1,000")`: the value only when the reason lacks it. */
export const formatRowError = (error: RowError, file: string): string => {
  const where = error.line === undefined ? file : `${file} line ${error.line}`
  const column = error.column === "" ? "" : `, column ${JSON.stringify(error.column)}`
  const value = error.value === "" || error.reason.includes(error.value) || error.reason.includes(visible(error.value)) ? "" : ` (value ${printable(error.value)})`
  return escapeControl(`${where}${column}: ${error.reason}${value}`)
}

export interface FormatErrorsOptions {
  readonly file: string
  /** At most this many lines, then a count of the rest (default 50). */
  readonly limit?: number
  /** Where the full list is, named in the last line when some are left out. */
  readonly errorsFile?: string
}

export const formatRowErrors = (errors: Iterable<RowError>, options: FormatErrorsOptions): string => {
  const limit = options.limit ?? 50
  const lines: Array<string> = []
  let total = 0
  for (const error of errors) {
    if (total < limit) lines.push(formatRowError(error, options.file))
    total++
  }
  if (total > limit) {
    const where = options.errorsFile === undefined ? "" : ` (all in ${options.errorsFile})`
    lines.push(`... and ${total - limit} more error${total - limit === 1 ? "" : "s"}${where}`)
  }
  return lines.join("\n")
}
