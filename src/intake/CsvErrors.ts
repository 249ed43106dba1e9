/** Reasons a whole CSV file is refused before any row is checked. */
import { Data } from "effect"
import type { RowError } from "./RowError.ts"

export interface HeaderProblem {
  readonly column: string
  /** The header as written in the file; empty for a missing column. */
  readonly value: string
  readonly reason: string
}

export class CsvReadError extends Data.TaggedError("CsvReadError")<{
  readonly path: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message() {
    return `cannot read ${this.path}: ${this.reason}`
  }
}

export class CsvEncodingError extends Data.TaggedError("CsvEncodingError")<{
  readonly line: number
  readonly byteOffset: number
  readonly reason: string
}> {
  override get message() {
    return `line ${this.line}: ${this.reason}`
  }
}

export class CsvHeaderError extends Data.TaggedError("CsvHeaderError")<{
  readonly problems: ReadonlyArray<HeaderProblem>
}> {
  override get message() {
    return `line 1: ${this.problems.map((p) => p.reason).join("; ")}`
  }
}

export class CsvNoRowsError extends Data.TaggedError("CsvNoRowsError")<{ readonly headerFound: boolean }> {
  override get message() {
    return this.headerFound ? "no rows: the file has a header but no payout rows" : "no rows: the file is empty"
  }
}

export class CsvRecordTooLongError extends Data.TaggedError("CsvRecordTooLongError")<{
  readonly line: number
  readonly limit: number
}> {
  override get message() {
    return `line ${this.line}: record longer than ${this.limit} characters (is a quote left open?)`
  }
}

export type CsvFileError = CsvReadError | CsvEncodingError | CsvHeaderError | CsvNoRowsError | CsvRecordTooLongError

const FILE_ERROR_TAGS: ReadonlySet<unknown> = new Set(["CsvReadError", "CsvEncodingError", "CsvHeaderError", "CsvNoRowsError", "CsvRecordTooLongError"])

/** A problem of the whole file (a refusal to word), not a failure of what the check asks beyond it. */
export const isCsvFileError = (u: unknown): u is CsvFileError => typeof u === "object" && u !== null && "_tag" in u && FILE_ERROR_TAGS.has(u._tag)

/** A refused file as lines of the errors file. */
export const csvFileErrorRows = (error: CsvFileError): ReadonlyArray<RowError> => {
  switch (error._tag) {
    case "CsvHeaderError":
      return error.problems.map((p) => ({ line: 1, column: p.column, value: p.value, reason: p.reason }))
    case "CsvEncodingError":
      return [{ line: error.line, column: "", value: "", reason: error.reason }]
    case "CsvRecordTooLongError":
      return [{ line: error.line, column: "", value: "", reason: error.message.replace(/^line \d+: /, "") }]
    case "CsvNoRowsError":
      return [{ line: error.headerFound ? 1 : undefined, column: "", value: "", reason: error.message }]
    case "CsvReadError":
      return [{ line: undefined, column: "", value: "", reason: error.message }]
  }
}
