/**
 * Duplicates within one file, in file order: a later row repeating an id, or repeating (phone, amount,
 * operator) where either row has no id. The same finder serves the streamed check (`makeRowChecker`)
 * and the merge of the chunks validated on worker threads, so both name the same lines with the same
 * words. It is fed hashes (see `fastHash64`), never the rows themselves: a million rows cost two
 * tables of about 24 MB, whatever else the rows hold.
 */
import type { CsvColumn } from "./CsvHeader.ts"
import type { RowError } from "./RowError.ts"
import { LineTable } from "./ValidateKeys.ts"

/** What the repeat message quotes of a row valid on its own, and the hash of its repeat material. */
export interface RepeatCandidate {
  readonly hi: number
  readonly lo: number
  readonly phone: string
  /** The amount cell as written (trimmed). */
  readonly amount: string | undefined
  readonly operator: string
}

const NONE: ReadonlyArray<RowError> = []

export class DuplicateFinder {
  private readonly ids = new LineTable()
  private readonly keys = new LineTable()
  private readonly keysWithoutId = new LineTable()
  private readonly idColumn: string
  private readonly repeatColumn: string

  constructor(private readonly allowRepeats: boolean, headers: Readonly<Partial<Record<CsvColumn, string>>>) {
    this.idColumn = headers.id ?? "id"
    this.repeatColumn = [headers.phone, headers.amount, headers.operator].join("+")
  }

  /**
   * The duplicate errors of the next row (none: an empty array). `idHash` is given when the row has an
   * id (valid or not); `repeat` when the row is valid on its own.
   */
  check(
    line: number,
    id: string | undefined,
    idHi: number,
    idLo: number,
    repeat: RepeatCandidate | undefined
  ): ReadonlyArray<RowError> {
    let errors: Array<RowError> | undefined
    if (id !== undefined) {
      const first = this.ids.addOrGetHL(idHi, idLo, line)
      if (first !== undefined) {
        errors = [{ line, column: this.idColumn, value: id, reason: `duplicate id "${id}": first used on line ${first}` }]
      }
    }
    if (repeat !== undefined) {
      const first = id === undefined ? this.keys.addOrGetHL(repeat.hi, repeat.lo, line) : this.keysWithoutId.getHL(repeat.hi, repeat.lo)
      if (id === undefined) this.keysWithoutId.addOrGetHL(repeat.hi, repeat.lo, line)
      else this.keys.addOrGetHL(repeat.hi, repeat.lo, line)
      if (first !== undefined && !this.allowRepeats) {
        errors ??= []
        errors.push({
          line,
          column: this.repeatColumn,
          value: [repeat.phone, repeat.amount, repeat.operator].join(" "),
          reason: `same phone, amount and operator as line ${first} without distinct ids: a double entry? (give each row its own id, or allow repeats)`
        })
      }
    }
    return errors ?? NONE
  }
}
