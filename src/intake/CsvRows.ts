/**
 * The incremental engine under `Csv.ts`: bytes in, rows of cells out, one chunk at a time, so a big
 * file is never held whole. papaparse splits the cells; this keeps what it does not:
 * UTF-8 checks, line breaks of every kind, and the physical line where each row starts.
 */
import { Either } from "effect"
import Papa from "papaparse"
import { CsvEncodingError, type CsvFileError, CsvRecordTooLongError } from "./CsvErrors.ts"
import { MAX_COLUMNS, tooManyColumns } from "./CsvHeader.ts"
import { countNewlines, firstInvalidUtf8, HeaderLineScan, LineBreakNormaliser, lineBreaksBefore } from "./CsvText.ts"

export const MAX_RECORD_CHARS = 16 * 1024 * 1024

export interface CsvRow {
  /** Physical line where the row starts; the first line is 1. */
  readonly line: number
  readonly cells: ReadonlyArray<string>
  /** Set when the row's quotes are broken: its cells are then unreliable. */
  readonly quoteProblem: string | undefined
}

export type RowsOrError = Either.Either<ReadonlyArray<CsvRow>, CsvFileError>

const QUOTE_PROBLEMS: Readonly<Record<string, string>> = {
  MissingQuotes: "a quoted field is not closed",
  InvalidQuotes: "malformed quotes: a closing quote must be followed by the delimiter or the end of the line"
}

interface RawRow {
  readonly cells: ReadonlyArray<string>
  /** Where the row ends in the parsed text: after its line break. */
  readonly end: number
  readonly quoteProblem: string | undefined
}

/** papaparse in array mode gives a row as an array of strings. */
const isCells = (value: unknown): value is Array<string> => Array.isArray(value) && value.every((cell) => typeof cell === "string")

// Classes, not literals: Validate.ts `ValidRowImpl` says why.
class RawRowImpl implements RawRow {
  constructor(readonly cells: ReadonlyArray<string>, readonly end: number, readonly quoteProblem: string | undefined) {}
}

class CsvRowImpl implements CsvRow {
  constructor(readonly line: number, readonly cells: ReadonlyArray<string>, readonly quoteProblem: string | undefined) {}
}

const rawRowOf = (results: Papa.ParseStepResult<unknown>): RawRow => {
  const data = results.data
  const first: unknown = Array.isArray(data) ? data[0] : undefined
  const cells = isCells(first) ? first : []
  const problem = results.errors.find((error) => Object.hasOwn(QUOTE_PROBLEMS, error.code))
  return new RawRowImpl(cells, results.meta.cursor, problem === undefined ? undefined : QUOTE_PROBLEMS[problem.code])
}

const countQuotes = (text: string): number => {
  let count = 0
  for (let at = text.indexOf("\""); at !== -1; at = text.indexOf("\"", at + 1)) count++
  return count
}

export const isUtf16Bom = (bytes: Uint8Array): boolean =>
  bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))

/** Comma or semicolon, detected from the first line; CRLF and CR read as LF; a BOM skipped. */
export class CsvRowReader {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true })
  private bytesSeen = 0
  private readonly lineBreaks = new LineBreakNormaliser()
  private pending = ""
  private pendingLine = 1
  private openQuote = false
  private parser: Papa.Parser | undefined
  private readonly headerLine = new HeaderLineScan()
  private readonly collected: Array<RawRow> = []
  delimiter: "," | ";" | undefined

  push(bytes: Uint8Array): RowsOrError {
    const offset = this.bytesSeen
    this.bytesSeen += bytes.length
    if (offset === 0 && isUtf16Bom(bytes)) {
      return Either.left(this.encodingError(0, "the file is UTF-16: save it as \"CSV UTF-8\""))
    }
    const nul = bytes.indexOf(0)
    if (nul !== -1) {
      const reason = "the file contains NUL bytes: it is binary (or UTF-16), not a UTF-8 CSV"
      return Either.left(this.encodingError(offset + nul, reason, bytes, nul))
    }
    let text: string
    try {
      text = this.decoder.decode(bytes, { stream: true })
    } catch {
      const at = Math.max(0, firstInvalidUtf8(bytes))
      return Either.left(this.encodingError(offset + at, "invalid UTF-8: save the file as \"CSV UTF-8\"", bytes, at))
    }
    return this.feed(this.normaliseLineBreaks(text, false), false)
  }

  end(): RowsOrError {
    let text: string
    try {
      text = this.decoder.decode()
    } catch {
      return Either.left(this.encodingError(this.bytesSeen, "invalid UTF-8: the file ends inside a character"))
    }
    return this.feed(this.normaliseLineBreaks(text, true), true)
  }

  private encodingError(byteOffset: number, reason: string, bytes?: Uint8Array, upTo?: number): CsvEncodingError {
    const before = bytes === undefined || upTo === undefined ? 0 : lineBreaksBefore(bytes, upTo, this.lineBreaks.carriedCR)
    const line = this.pendingLine + countNewlines(this.pending, 0, this.pending.length) + before
    return new CsvEncodingError({ line, byteOffset, reason: `${reason} (byte ${byteOffset})` })
  }

  private normaliseLineBreaks(decoded: string, last: boolean): string {
    return this.lineBreaks.push(decoded, last)
  }

  private feed(text: string, last: boolean): RowsOrError {
    this.pending += text
    if (this.parser === undefined) {
      const end = this.headerLine.scan(this.pending, MAX_COLUMNS)
      // Refused from the raw text: a header of a million columns never becomes a million cells.
      if (this.headerLine.columns > MAX_COLUMNS) return Either.left(tooManyColumns())
      if (end === -1 && !last) return this.checkPendingSize([])
      this.delimiter = this.headerLine.delimiter
      this.parser = new Papa.Parser({
        delimiter: this.delimiter,
        newline: "\n",
        quoteChar: "\"",
        step: (results: Papa.ParseStepResult<unknown>) => this.collect(results)
      })
    } else if (!last && !this.mayEndRow(text)) {
      return this.checkPendingSize([])
    }
    this.parser.parse(this.pending, 0, !last)
    const rows: Array<CsvRow> = []
    let start = 0
    for (const raw of this.collected) {
      rows.push(new CsvRowImpl(this.pendingLine, raw.cells, raw.quoteProblem))
      this.pendingLine += countNewlines(this.pending, start, raw.end)
      start = raw.end
    }
    this.collected.length = 0
    this.pending = last ? "" : this.pending.slice(start)
    this.openQuote = countQuotes(this.pending) % 2 === 1
    return this.checkPendingSize(rows)
  }

  /**
   * Whether `text`, appended to the pending row, has a line break outside quotes: without one no row
   * can end, and parsing again (papaparse restarts at the row's start) would make a long quoted cell
   * cost quadratic time. Otherwise keeps the quote parity of the pending row.
   */
  private mayEndRow(text: string): boolean {
    let quoted = this.openQuote
    let from = 0
    for (;;) {
      const quote = text.indexOf("\"", from)
      if (!quoted) {
        const newline = text.indexOf("\n", from)
        if (newline !== -1 && (quote === -1 || newline < quote)) return true
      }
      if (quote === -1) break
      quoted = !quoted
      from = quote + 1
    }
    this.openQuote = quoted
    return false
  }

  private collect(results: Papa.ParseStepResult<unknown>): void {
    this.collected.push(rawRowOf(results))
  }

  private checkPendingSize(rows: ReadonlyArray<CsvRow>): RowsOrError {
    return this.pending.length > MAX_RECORD_CHARS
      ? Either.left(new CsvRecordTooLongError({ line: this.pendingLine, limit: MAX_RECORD_CHARS }))
      : Either.right(rows)
  }
}
