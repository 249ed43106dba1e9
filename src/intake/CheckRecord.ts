// One record checked alone, cell by cell (everything but duplicates): the `ValidRow` ready to be paid, or
// the `RejectedRow` naming every problem, and the shapes of both.
import { Either } from "effect"
import type { Country, MobileOperator, PayoutCurrency } from "../domain/Operators.ts"
import { normaliseMobile } from "../domain/Phone.ts"
import { CSV_COLUMNS, type CsvColumn } from "./CsvHeader.ts"
import type { CsvRecord } from "./CsvReader.ts"
import type { RowError } from "./RowError.ts"
import * as Rules from "./ValidateRules.ts"
import type { MinorUnits } from "../domain/Ids.ts"

export interface ValidRow {
  readonly _tag: "ValidRow"
  readonly line: number
  readonly index: number
  readonly id: string | undefined
  readonly amountMinor: MinorUnits
  readonly currency: PayoutCurrency
  readonly operator: string
  readonly country: Country
  /** E.164. */
  readonly phone: string
  readonly name: string
  readonly email: string
  /** Without the row token, which the submitter prepends. */
  readonly description: string
  /** From the `meta.*` columns; sent as payout_details. */
  readonly details: Readonly<Record<string, string>>
}

/**
 * A valid row made by a class, not an object literal: V8 may decide, from a literal's first objects
 * (the first rows wait for the account's look-up), to allocate every later one straight into its old
 * generation, where each row of a big file then waits for a full collection (allocation-site
 * pretenuring, docs/PERFORMANCE.md); objects a class makes are never allocated there. The records and
 * rows read before it (CsvReader.ts, CsvRows.ts) are made the same way for the same reason.
 */
class ValidRowImpl implements ValidRow {
  readonly _tag = "ValidRow"
  constructor(
    readonly line: number,
    readonly index: number,
    readonly id: string | undefined,
    readonly amountMinor: MinorUnits,
    readonly currency: PayoutCurrency,
    readonly operator: string,
    readonly country: Country,
    readonly phone: string,
    readonly name: string,
    readonly email: string,
    readonly description: string,
    readonly details: Readonly<Record<string, string>>
  ) {}
}

export interface RejectedRow {
  readonly _tag: "RejectedRow"
  readonly line: number
  readonly index: number
  readonly id: string | undefined
  readonly errors: readonly [RowError, ...Array<RowError>]
  /** The cells as read (trimmed), for a ledger of rejected rows. */
  readonly cells: Readonly<Partial<Record<CsvColumn, string>>>
  readonly amountMinor: MinorUnits | undefined
  readonly details: Readonly<Record<string, string>>
}

export type CheckedRow = ValidRow | RejectedRow

export const defaultDescription = (id: string | undefined, fileName: string, line: number): string =>
  id === undefined ? `Payout ${fileName} line ${line}` : `Payout ${id}`

/**
 * What one record's checks gather: its errors (made only for a row with one) and the columns holding
 * a spreadsheet error value. One object a row, no closure a row: a million-row file checks a million.
 */
class RecordCheck {
  errors: Array<RowError> | undefined
  residue: Set<CsvColumn> | undefined

  constructor(readonly record: CsvRecord) {
    if (record.errors.length > 0) this.errors = [...record.errors]
  }

  fail(column: string, value: string, reason: string): void {
    ;(this.errors ??= []).push({ line: this.record.line, column, value, reason })
  }

  /** A cell to check: there, and not spreadsheet residue (refused as such already). */
  present(column: CsvColumn): boolean {
    return this.record.fields[column] !== undefined && this.residue?.has(column) !== true
  }

  /** The clean value, or undefined with the reason noted against the column. */
  get<A>(column: CsvColumn, check: Either.Either<A, string>): A | undefined {
    if (Either.isRight(check)) return check.right
    this.fail(this.record.headers[column] ?? column, this.record.fields[column] ?? "", check.left)
    return undefined
  }
}

/** Checks one record alone: everything but duplicates. */
export const checkRecord = (record: CsvRecord, fileName: string): CheckedRow => {
  const { line, index, fields, headers } = record
  const c = new RecordCheck(record)
  // A cell holding a spreadsheet error value (`#REF!`) is refused as such, and its column's own check skipped.
  for (const column of CSV_COLUMNS) {
    const value = fields[column]
    if (value === undefined || !Rules.isSpreadsheetError(value)) continue
    ;(c.residue ??= new Set()).add(column)
    c.fail(headers[column] ?? column, value, Rules.spreadsheetErrorReason(value))
  }
  for (const key in record.meta) {
    const value = record.meta[key]
    if (Rules.isSpreadsheetError(value)) c.fail(`meta.${key}`, value, Rules.spreadsheetErrorReason(value))
  }

  const id = c.present("id") ? c.get("id", Rules.checkId(fields.id ?? "")) : undefined
  const operator: MobileOperator | undefined = c.present("operator") ? c.get("operator", Rules.checkOperator(fields.operator ?? "")) : undefined
  let currency = c.present("currency") ? c.get("currency", Rules.checkCurrency(fields.currency ?? "")) : undefined
  if (currency !== undefined && operator !== undefined) {
    currency = c.get("currency", Rules.checkCurrencyOfOperator(currency, operator))
  }
  const amountCurrency = currency ?? operator?.currency
  const amountMinor =
    c.present("amount") && amountCurrency !== undefined ? c.get("amount", Rules.checkAmount(fields.amount ?? "", amountCurrency)) : undefined
  const phone = c.present("phone") && operator !== undefined ? c.get("phone", normaliseMobile(fields.phone ?? "", operator.country)) : undefined
  const name = c.present("name") ? c.get("name", Rules.checkName(fields.name ?? "")) : undefined
  const email = c.present("email") ? c.get("email", Rules.checkEmail(fields.email ?? "")) : undefined
  const description = c.present("description") ? c.get("description", Rules.checkDescription(fields.description ?? "")) : undefined
  const details = Rules.cleanDetails(record.meta)

  const errors = c.errors
  if (
    errors === undefined &&
    operator !== undefined &&
    currency !== undefined &&
    amountMinor !== undefined &&
    phone !== undefined &&
    name !== undefined &&
    email !== undefined
  ) {
    return new ValidRowImpl(line, index, id, amountMinor, currency, operator.code, operator.country, phone, name, email, description ?? defaultDescription(id, fileName, line), details)
  }
  const [first, ...rest] = errors ?? [{ line, column: "", value: "", reason: "row is incomplete" }]
  return {
    _tag: "RejectedRow",
    line,
    index,
    id,
    errors: [first, ...rest],
    cells: cellsOf(record),
    // Only in the row's own currency: "2000" read for the operator's XAF but kept beside the row's NGN
    // became 20.00 NGN in the ledger.
    amountMinor: currency !== undefined ? amountMinor : undefined,
    details: rejectedDetails(record, details)
  }
}

/**
 * Where a rejected row keeps its amount as written, for the ledger: in its details, which a rejected
 * row never sends. (A `meta.amount_as_written` column of a rejected row is replaced by it.)
 */
export const AMOUNT_AS_WRITTEN = "amount_as_written"

export const rejectedDetails = (record: CsvRecord, details: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const amount = record.fields.amount?.trim()
  return amount === undefined ? details : { ...details, [AMOUNT_AS_WRITTEN]: amount }
}

export const cellsOf = (record: CsvRecord): Partial<Record<CsvColumn, string>> =>
  Object.fromEntries(Object.entries(record.fields).map(([column, value]) => [column, (value ?? "").trim()]))
