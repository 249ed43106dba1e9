/**
 * The check of a row that passes every check, straight from its cells: the same rules as
 * `CsvRecordReader` and `checkFields`, without the record, the closures and the error list made for
 * each row (most of a worker's garbage). It says only "valid, with these values" or "not sure": a row
 * with any problem is checked again the usual way, which words its errors, so the wording has one home.
 */
import type { MobileOperator, PayoutCurrency } from "../domain/Operators.ts"
import type { CsvColumn, CsvHeader } from "./CsvHeader.ts"
import { MAX_FIELD_CHARS } from "./CsvReader.ts"
import { mobileE164 } from "./PhoneFast.ts"
import * as Rules from "./ValidateRules.ts"

/** A valid row's values, written into one object reused row after row. */
export interface FastRow {
  id: string | undefined
  operator: MobileOperator | undefined
  currency: PayoutCurrency | undefined
  amountMinor: number
  phone: string
  /** As `checkName` reads it. */
  name: string
  /** The amount cell as written (trimmed). */
  amountWritten: string
}

export const emptyFastRow = (): FastRow => ({ id: undefined, operator: undefined, currency: undefined, amountMinor: 0, phone: "", name: "", amountWritten: "" })

export type FastCheck = (cells: ReadonlyArray<string>, out: FastRow) => boolean

/** The check for rows under this header; undefined when no row can be valid under it (a required column missing). */
export const fastCheckOf = (header: CsvHeader): FastCheck | undefined => {
  const at: Partial<Record<CsvColumn, number>> = {}
  const unnamed: Array<number> = []
  header.slots.forEach((slot, i) => {
    if (slot._tag === "Column") at[slot.column] = i
    else if (slot._tag === "Unnamed") unnamed.push(i)
  })
  const { id, amount, currency, operator, phone, name, email, description } = at
  if (amount === undefined || currency === undefined || operator === undefined || phone === undefined || name === undefined || email === undefined) {
    return undefined
  }
  const width = header.slots.length
  return (cells, out) => {
    if (cells.length !== width) return false
    for (let i = 0; i < width; i++) if (cells[i].length > MAX_FIELD_CHARS || Rules.isSpreadsheetError(cells[i])) return false
    for (const i of unnamed) if (cells[i].trim() !== "") return false
    const idCheck = id === undefined ? undefined : Rules.checkId(cells[id])
    if (idCheck !== undefined && idCheck._tag === "Left") return false
    const operatorCheck = Rules.checkOperator(cells[operator])
    if (operatorCheck._tag === "Left") return false
    const currencyCheck = Rules.checkCurrency(cells[currency])
    if (currencyCheck._tag === "Left" || currencyCheck.right !== operatorCheck.right.currency) return false
    const amountCheck = Rules.checkAmount(cells[amount], currencyCheck.right)
    if (amountCheck._tag === "Left") return false
    const nameCheck = Rules.checkName(cells[name])
    if (nameCheck._tag === "Left" || Rules.checkEmail(cells[email])._tag === "Left") return false
    if (description !== undefined && Rules.checkDescription(cells[description])._tag === "Left") return false
    const e164 = mobileE164(cells[phone], operatorCheck.right.country)
    if (e164 === undefined) return false
    out.id = idCheck?.right
    out.operator = operatorCheck.right
    out.currency = currencyCheck.right
    out.amountMinor = amountCheck.right
    out.phone = e164
    out.name = nameCheck.right
    out.amountWritten = cells[amount].trim()
    return true
  }
}
