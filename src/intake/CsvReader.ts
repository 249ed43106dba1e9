/**
 * Rows of cells to payout records: the first row is the header (DESIGN.md section 5; blank lines
 * before it are skipped), blank rows are skipped, and problems of one row (field count, quotes, over-long cells) travel on its record.
 */
import { Either } from "effect"
import { type CsvFileError, CsvNoRowsError } from "./CsvErrors.ts"
import { type CsvColumn, type CsvHeader, type HeaderSlot, resolveHeader } from "./CsvHeader.ts"
import type { CsvRow } from "./CsvRows.ts"
import type { RowError } from "./RowError.ts"

export const MAX_FIELD_CHARS = 1000

export interface CsvRecord {
  /** Physical line where the record starts; the header is line 1. */
  readonly line: number
  /** 0-based number of the record among the data rows (blank lines are not rows). */
  readonly index: number
  readonly fields: Readonly<Partial<Record<CsvColumn, string>>>
  /** `meta.<key>` columns, by key. */
  readonly meta: Readonly<Record<string, string>>
  /** The header as written in the file, for error messages. */
  readonly headers: Readonly<Partial<Record<CsvColumn, string>>>
  /** Problems found while reading the record: its fields are then partial or empty. */
  readonly errors: ReadonlyArray<RowError>
}

type RecordsOrError = Either.Either<ReadonlyArray<CsvRecord>, CsvFileError>

const NO_ERRORS: ReadonlyArray<RowError> = []

const slotName = (slot: HeaderSlot): string => (slot._tag === "Unnamed" ? `column ${slot.position + 1}` : slot.header)

const isBlank = (cells: ReadonlyArray<string>): boolean => cells.every((cell) => cell.trim() === "")

/** The header as written, by column: what error messages name. */
export const headerNames = (header: CsvHeader): Partial<Record<CsvColumn, string>> => {
  const headers: Partial<Record<CsvColumn, string>> = {}
  for (const slot of header.slots) if (slot._tag === "Column") headers[slot.column] = slot.header
  return headers
}

/** A class, not a literal, and `new Object()` for its fields: Validate.ts `ValidRowImpl` says why. */
class CsvRecordImpl implements CsvRecord {
  constructor(
    readonly line: number,
    readonly index: number,
    readonly fields: Readonly<Partial<Record<CsvColumn, string>>>,
    readonly meta: Readonly<Record<string, string>>,
    readonly headers: Readonly<Partial<Record<CsvColumn, string>>>,
    readonly errors: ReadonlyArray<RowError>
  ) {}
}

export class CsvRecordReader {
  private header: CsvHeader | undefined
  private headers: Partial<Record<CsvColumn, string>> = {}
  private sawHeader = false
  private index = 0

  rows(rows: ReadonlyArray<CsvRow>, delimiter: string): RecordsOrError {
    const records: Array<CsvRecord> = []
    for (const row of rows) {
      if (this.header === undefined) {
        const header = this.readHeader(row, delimiter)
        if (Either.isLeft(header)) return Either.left(header.left)
        continue
      }
      if (row.quoteProblem === undefined && isBlank(row.cells)) continue
      records.push(this.toRecord(row, this.header))
    }
    return Either.right(records)
  }

  end(): Either.Either<void, CsvFileError> {
    return this.index === 0 ? Either.left(new CsvNoRowsError({ headerFound: this.sawHeader })) : Either.void
  }

  private readHeader(row: CsvRow, delimiter: string): Either.Either<void, CsvFileError> {
    if (row.quoteProblem === undefined && isBlank(row.cells)) return Either.void
    this.sawHeader = true
    return Either.map(resolveHeader(row.cells, delimiter), (header) => {
      this.header = header
      this.headers = headerNames(header)
    })
  }

  private toRecord(row: CsvRow, header: CsvHeader): CsvRecord {
    const { line, cells } = row
    const index = this.index++
    // A loop over the slots, no closure and no array per row: a million-row file makes a million records.
    const fields: Partial<Record<CsvColumn, string>> = new Object()
    let errors: Array<RowError> | undefined
    let meta: Array<[string, string]> | undefined
    if (row.quoteProblem !== undefined) {
      errors = [{ line, column: "", value: "", reason: row.quoteProblem }]
    } else if (cells.length !== header.slots.length) {
      errors = [{ line, column: "", value: "", reason: `expected ${header.slots.length} fields as in the header, found ${cells.length}` }]
    } else {
      for (let i = 0; i < cells.length; i++) {
        const slot = header.slots[i]
        const value = cells[i]
        if (value.length > MAX_FIELD_CHARS) {
          const reason = `longer than ${MAX_FIELD_CHARS} characters (${value.length})`
          ;(errors ??= []).push({ line, column: slotName(slot), value: value.slice(0, 100), reason })
        } else if (slot._tag === "Column") fields[slot.column] = value
        else if (slot._tag === "Meta") (meta ??= []).push([slot.key, value])
        else if (value.trim() !== "") (errors ??= []).push({ line, column: slotName(slot), value, reason: "a value in a column without a header" })
      }
    }
    // fromEntries, not assignment, so a "meta.__proto__" column stays a key of that name.
    return new CsvRecordImpl(line, index, fields, meta === undefined ? {} : Object.fromEntries(meta), this.headers, errors ?? NO_ERRORS)
  }
}
