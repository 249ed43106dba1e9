/**
 * Duplicates within one file, in file order: a later row repeating an id, or repeating (phone, amount,
 * operator) where either row has no id. It is fed 64-bit hashes (ValidateKeys.ts), never the rows
 * themselves, so its memory does not depend on what the rows hold.
 */
import { visible } from "../domain/Text.ts"
import type { CsvColumn } from "./CsvHeader.ts"
import type { RowError } from "./RowError.ts"
import { SharedPhones } from "./SharedPhones.ts"
import { LineTable } from "./ValidateKeys.ts"

export class DuplicateFinder {
  private readonly ids = new LineTable()
  private readonly keys = new LineTable()
  private readonly keysWithoutId = new LineTable()
  private readonly idColumn: string
  private readonly repeatColumn: string
  private readonly phoneColumn: string

  /** `phones`: one phone, one recipient (SharedPhones.ts), fed in the same order; the caller reads what it accepted. */
  constructor(
    private readonly allowRepeats: boolean,
    headers: Readonly<Partial<Record<CsvColumn, string>>>,
    private readonly phones: SharedPhones = new SharedPhones(false)
  ) {
    this.idColumn = headers.id ?? "id"
    this.repeatColumn = [headers.phone, headers.amount, headers.operator].join("+")
    this.phoneColumn = headers.phone ?? "phone"
  }

  /** For a row valid on its own: its refusal when an earlier row pays its phone (E.164) to another name. */
  sharedPhone(phone: string, name: string, line: number): RowError | undefined {
    return this.phones.check(phone, name, line, this.phoneColumn)
  }

  /**
   * The line that first used this id (the hash of its canonical form, `canonicalId`: `S-1001` and
   * `s-1001` are one id), if any; every row with an id, valid or not, is noted.
   */
  idSeen(hi: number, lo: number, line: number): number | undefined {
    return this.ids.addOrGetHL(hi, lo, line)
  }

  /**
   * For a row valid on its own, with the hash of its repeat material: the line of an earlier row it
   * repeats where either has no id (undefined when repeats are allowed).
   */
  repeatSeen(hasId: boolean, hi: number, lo: number, line: number): number | undefined {
    const first = hasId ? this.keysWithoutId.getHL(hi, lo) : this.keys.addOrGetHL(hi, lo, line)
    if (hasId) this.keys.addOrGetHL(hi, lo, line)
    else this.keysWithoutId.addOrGetHL(hi, lo, line)
    return this.allowRepeats ? undefined : first
  }

  duplicateId(line: number, id: string, first: number): RowError {
    return { line, column: this.idColumn, value: id, reason: `duplicate id "${visible(id)}": first used on line ${first}` }
  }

  /** `value`: the phone (E.164), the amount as written and the operator. */
  repeat(line: number, value: ReadonlyArray<string | undefined>, first: number): RowError {
    return {
      line,
      column: this.repeatColumn,
      value: value.join(" "),
      reason: `same phone, amount and operator as line ${first} without distinct ids: a double entry? (give each row its own id, or allow repeats)`
    }
  }
}
