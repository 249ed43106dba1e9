/**
 * One chunk of a file checked on its own (on a worker thread): its rows parsed and each checked alone
 * (`checkFields`), with what the merge on the main thread needs to find duplicates and compare with
 * other batches, as columns: a few typed arrays and arrays of short strings cross between threads far
 * cheaper than one object per row.
 */
import { MOBILE_OPERATOR_CODES, PAYOUT_CURRENCIES } from "../domain/Operators.ts"
import type { TextChunk } from "./CsvChunks.ts"
import { CsvRecordReader } from "./CsvReader.ts"
import { eachRowOfText } from "./CsvRows.ts"
import { LineBreakNormaliser } from "./CsvText.ts"
import type { RowError } from "./RowError.ts"
import { checkFields } from "./Validate.ts"
import { fastHash64, repeatKeyOf, repeatMaterial } from "./ValidateKeys.ts"

export interface ChunkJob extends TextChunk {
  /** For the default description `Payout <file name> line <n>`. */
  readonly fileName: string
}

export const FLAG_VALID = 1
export const FLAG_ID = 2

export interface ChunkRows {
  readonly _tag: "Rows"
  readonly seq: number
  /** Rows (records) of the chunk; their index in the file is the rows of earlier chunks plus their place here. */
  readonly count: number
  readonly lines: Int32Array
  /** FLAG_VALID when the row is valid on its own, FLAG_ID when it has an id. */
  readonly flags: Uint8Array
  /** `fastHash64` of the id, of the repeat material (valid rows). */
  readonly idHi: Uint32Array
  readonly idLo: Uint32Array
  readonly keyHi: Uint32Array
  readonly keyLo: Uint32Array
  /** Valid rows: amount in minor units, index of the operator code and of the currency. */
  readonly amounts: Float64Array
  readonly operators: Uint8Array
  readonly currencies: Uint8Array
  /**
   * Texts of the rows, each column one string of lines (one string crosses threads as one copy; an
   * array of a million short strings costs each its own): ids ("" without one: see FLAG_ID), and for
   * the valid rows the E.164 number, the amount cell as written, and, without an id, the repeat key
   * compared with other batches. None of them can hold a line break (see `checkId` and the rules).
   */
  readonly ids: string
  readonly phones: string
  readonly amountsWritten: string
  readonly repeatKeys: string
  /** Rows invalid on their own: where in the chunk, and why. */
  readonly rejected: Array<{ readonly at: number; readonly errors: ReadonlyArray<RowError> }>
}

/** The chunk did not end where its last row ends: the cut was not between rows. */
export interface ChunkMisaligned {
  readonly _tag: "Misaligned"
  readonly seq: number
}

export type ChunkResult = ChunkRows | ChunkMisaligned

/** Columns grown by half again as rows come (the rows of a chunk are not counted before they are read). */
class Columns {
  size = 0
  lines = new Int32Array(1024)
  flags = new Uint8Array(1024)
  idHi = new Uint32Array(1024)
  idLo = new Uint32Array(1024)
  keyHi = new Uint32Array(1024)
  keyLo = new Uint32Array(1024)
  amounts = new Float64Array(1024)
  operators = new Uint8Array(1024)
  currencies = new Uint8Array(1024)

  /** Room for one more row; returns its place. */
  next(): number {
    if (this.size === this.lines.length) {
      const n = Math.ceil(this.size * 1.5)
      const grown = <A extends { set: (a: A) => void }>(a: A, make: (n: number) => A): A => {
        const b = make(n)
        b.set(a)
        return b
      }
      this.lines = grown(this.lines, (k) => new Int32Array(k))
      this.flags = grown(this.flags, (k) => new Uint8Array(k))
      this.idHi = grown(this.idHi, (k) => new Uint32Array(k))
      this.idLo = grown(this.idLo, (k) => new Uint32Array(k))
      this.keyHi = grown(this.keyHi, (k) => new Uint32Array(k))
      this.keyLo = grown(this.keyLo, (k) => new Uint32Array(k))
      this.amounts = grown(this.amounts, (k) => new Float64Array(k))
      this.operators = grown(this.operators, (k) => new Uint8Array(k))
      this.currencies = grown(this.currencies, (k) => new Uint8Array(k))
    }
    return this.size++
  }
}

// A piece starts after a line feed: a BOM there is a character of a cell, as the streamed reader keeps it.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** A piece's text: decoded and its line breaks normalised here (CsvChunks.ts); undefined when it is not UTF-8. */
const textOf = (job: ChunkJob): string | undefined => {
  if (job.text !== undefined) return job.text
  if (job.bytes === undefined) return undefined
  try {
    return new LineBreakNormaliser().push(decoder.decode(job.bytes), true)
  } catch {
    return undefined
  }
}

export const validateChunk = (job: ChunkJob): ChunkResult => {
  const text = textOf(job)
  // Not UTF-8: the streamed reader words it (the file goes to it as for a cut between rows).
  if (text === undefined) return { _tag: "Misaligned", seq: job.seq }
  const records = CsvRecordReader.after(job.header)
  const c = new Columns()
  const ids: Array<string> = []
  const phones: Array<string> = []
  const amountsWritten: Array<string> = []
  const repeatKeys: Array<string> = []
  const rejected: Array<{ readonly at: number; readonly errors: ReadonlyArray<RowError> }> = []
  const end = eachRowOfText(text, job.header.delimiter, job.line, job.last, (csvRow) => {
    const record = records.record(csvRow)
    if (record === undefined) return
    const i = c.next()
    const row = checkFields(record, job.fileName, true)
    c.lines[i] = row.line
    c.flags[i] = 0
    ids.push(row.id ?? "")
    if (row.id !== undefined) {
      const h = fastHash64(row.id)
      c.idHi[i] = h.hi
      c.idLo[i] = h.lo
      c.flags[i] |= FLAG_ID
    }
    if (row._tag === "RejectedRow") {
      rejected.push({ at: i, errors: row.errors })
      phones.push("")
      amountsWritten.push("")
      repeatKeys.push("")
      return
    }
    const h = fastHash64(repeatMaterial(row.phone, row.amountMinor, row.operator))
    c.flags[i] |= FLAG_VALID
    c.keyHi[i] = h.hi
    c.keyLo[i] = h.lo
    c.amounts[i] = row.amountMinor
    c.operators[i] = MOBILE_OPERATOR_CODES.indexOf(row.operator)
    c.currencies[i] = PAYOUT_CURRENCIES.indexOf(row.currency)
    phones.push(row.phone)
    amountsWritten.push(record.fields.amount?.trim() ?? "")
    // The sha256 only where the store will be asked about it: rows with ids are compared by id.
    repeatKeys.push(row.id === undefined ? repeatKeyOf(row.phone, row.amountMinor, row.operator) : "")
  })
  if (!job.last && end !== text.length) return { _tag: "Misaligned", seq: job.seq }
  const n = c.size
  return {
    _tag: "Rows",
    seq: job.seq,
    count: n,
    lines: c.lines.slice(0, n),
    flags: c.flags.slice(0, n),
    idHi: c.idHi.slice(0, n),
    idLo: c.idLo.slice(0, n),
    keyHi: c.keyHi.slice(0, n),
    keyLo: c.keyLo.slice(0, n),
    amounts: c.amounts.slice(0, n),
    operators: c.operators.slice(0, n),
    currencies: c.currencies.slice(0, n),
    ids: ids.join("\n"),
    phones: phones.join("\n"),
    amountsWritten: amountsWritten.join("\n"),
    repeatKeys: repeatKeys.join("\n"),
    rejected
  }
}

/** The buffers a result hands over to the receiving thread instead of copying them. */
export const transferables = (result: ChunkResult): Array<ArrayBuffer> =>
  result._tag === "Misaligned"
    ? []
    : [result.lines, result.flags, result.idHi, result.idLo, result.keyHi, result.keyLo, result.amounts, result.operators, result.currencies]
        .map((a) => a.buffer)
        .filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
