/**
 * A chunk checked on a worker thread (ValidateChunk.ts), merged on the main thread in file order: the
 * file's duplicates found (`DuplicateFinder`, fed in order, so every error keeps its line), the rows
 * kept as the columns they came in. Objects per row (`IntakeRow`) are made only when asked for, for a
 * chunk the other batches or the guards have something to say about: made for every row, they were
 * most of this thread's garbage, and living across the store's lookup, most of what it promoted to
 * its old generation (where it waits for a full collection: RSS, not data).
 */
import { MOBILE_OPERATOR_CODES, PAYOUT_CURRENCIES } from "../domain/Operators.ts"
import type { IntakeRow } from "./CrossBatch.ts"
import type { DuplicateFinder } from "./Duplicates.ts"
import type { RowError } from "./RowError.ts"
import type { PhoneRow } from "./SharedPhones.ts"
import { type ChunkRows, FLAG_ID, FLAG_VALID } from "./ValidateChunk.ts"

/** A column of texts sent as one string of lines (see `ChunkRows`), split when first read. */
class Texts {
  private lines: ReadonlyArray<string> | undefined
  constructor(private readonly joined: string) {}
  at(i: number): string {
    this.lines ??= this.joined.split("\n")
    return this.lines[i]
  }
}

export class MergedChunk {
  readonly count: number
  /** Errors by place in the chunk: a row's own, then its duplicates'. A row without is valid so far. */
  private readonly errors = new Map<number, ReadonlyArray<RowError>>()
  private readonly ids: Texts
  private readonly phones: Texts
  private readonly amountsWritten: Texts
  private readonly repeatKeys: Texts
  private readonly names: Texts

  /** `index`: the file's index of the chunk's first row. */
  constructor(private readonly r: ChunkRows, finder: DuplicateFinder, readonly index: number) {
    this.count = r.count
    this.ids = new Texts(r.ids)
    this.phones = new Texts(r.phones)
    this.amountsWritten = new Texts(r.amountsWritten)
    this.repeatKeys = new Texts(r.repeatKeys)
    this.names = new Texts(r.names)
    let k = 0
    for (let i = 0; i < r.count; i++) {
      const line = r.lines[i]
      const own = r.rejected[k]?.at === i ? r.rejected[k++].errors : undefined
      let dup: Array<RowError> | undefined
      if ((r.flags[i] & FLAG_ID) !== 0) {
        const first = finder.idSeen(r.idHi[i], r.idLo[i], line)
        if (first !== undefined) dup = [finder.duplicateId(line, this.ids.at(i), first)]
      }
      if ((r.flags[i] & FLAG_VALID) !== 0) {
        const first = finder.repeatSeen((r.flags[i] & FLAG_ID) !== 0, r.keyHi[i], r.keyLo[i], line)
        if (first !== undefined) (dup ??= []).push(finder.repeat(line, [this.phones.at(i), this.amountsWritten.at(i), this.operatorOf(i)], first))
        const shared = finder.sharedPhone(this.phones.at(i), this.names.at(i), line)
        if (shared !== undefined) (dup ??= []).push(shared)
      }
      if (own !== undefined || dup !== undefined) this.errors.set(i, own === undefined ? dup ?? [] : [...own, ...dup ?? []])
    }
  }

  get anyErrors(): boolean {
    return this.errors.size > 0
  }

  /** Row i's errors; undefined for a row valid so far (valid on its own and not a duplicate). */
  errorsOf(i: number): ReadonlyArray<RowError> | undefined {
    return this.errors.get(i)
  }

  currencyOf(i: number): string {
    return PAYOUT_CURRENCIES[this.r.currencies[i]]
  }

  amountOf(i: number): number {
    return this.r.amounts[i]
  }

  /** What the other batches are asked (`lookup` of CrossBatch.ts): the ids of the rows valid so far, the repeat keys of those without an id. */
  asks(): { readonly ids: ReadonlyArray<string>; readonly keys: ReadonlyArray<string> } {
    const ids: Array<string> = []
    const keys: Array<string> = []
    for (let i = 0; i < this.count; i++) {
      if (this.errors.has(i)) continue
      if ((this.r.flags[i] & FLAG_ID) !== 0) ids.push(this.ids.at(i))
      else keys.push(this.repeatKeys.at(i))
    }
    return { ids, keys }
  }

  /** The rows valid so far as the history of shared phones is asked about them (SharedPhones.ts). */
  phoneRows(): Array<PhoneRow> {
    const rows: Array<PhoneRow> = []
    for (let i = 0; i < this.count; i++) {
      if (!this.errors.has(i)) rows.push({ line: this.r.lines[i], phone: this.phones.at(i), name: this.names.at(i) })
    }
    return rows
  }

  /** The rows as objects, in order. */
  rows(): Array<IntakeRow> {
    const rows: Array<IntakeRow> = []
    for (let i = 0; i < this.count; i++) {
      const line = this.r.lines[i]
      const hasId = (this.r.flags[i] & FLAG_ID) !== 0
      const id = hasId ? this.ids.at(i) : undefined
      const errors = this.errors.get(i)
      if (errors !== undefined) {
        rows.push({ _tag: "RejectedRow", line, index: this.index + i, id, errors })
        continue
      }
      rows.push({
        _tag: "ValidRow",
        line,
        index: this.index + i,
        id,
        repeatKey: hasId ? undefined : this.repeatKeys.at(i),
        phone: this.phones.at(i),
        amountMinor: this.r.amounts[i],
        operator: this.operatorOf(i),
        currency: PAYOUT_CURRENCIES[this.r.currencies[i]],
        name: this.names.at(i)
      })
    }
    return rows
  }

  private operatorOf(i: number): string {
    return MOBILE_OPERATOR_CODES[this.r.operators[i]]
  }
}
