/**
 * One chunk of a file checked on its own (on a worker thread): its rows parsed and each checked alone
 * (`checkFields`), with what the merge on the main thread needs to find duplicates and compare with
 * other batches, as columns: a few typed arrays and arrays of short strings cross between threads far
 * cheaper than one object per row.
 */
import { canonicalId } from "../domain/Text.ts"
import { MOBILE_OPERATOR_CODES, PAYOUT_CURRENCIES, type PayoutCurrency } from "../domain/Operators.ts"
import type { TextChunk } from "./CsvChunks.ts"
import { CsvRecordReader } from "./CsvReader.ts"
import { type CsvRow, eachRowOfText } from "./CsvRows.ts"
import { countNewlines, LineBreakNormaliser } from "./CsvText.ts"
import type { RowError } from "./RowError.ts"
import { checkFields } from "./Validate.ts"
import { TextColumn } from "./TextColumn.ts"
import { emptyFastRow, fastCheckOf } from "./ValidateFast.ts"
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
  /** `fastHash64` of the id's canonical form (`canonicalId`), of the repeat material (valid rows). */
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
  /** The valid rows' names ("" for the others), for one phone, one recipient (SharedPhones.ts). */
  readonly names: string
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

/**
 * The bytes of a piece decoded at a time. A piece's text whole (512 KiB) was too big for the young
 * generation, so each one went to the old generation's large objects, garbage there until a full
 * collection (about 5 MiB of each worker's heap); 64 KiB of text dies young.
 */
const SLICE_BYTES = 64 * 1024

/** Where the slice from `at` ends: just after a line feed (a character of its own in UTF-8), or at the piece's end. */
const sliceEnd = (bytes: Uint8Array, at: number): number => {
  if (bytes.length - at <= SLICE_BYTES) return bytes.length
  const before = bytes.lastIndexOf(10, at + SLICE_BYTES - 1)
  if (before >= at) return before + 1
  const after = bytes.indexOf(10, at + SLICE_BYTES)
  return after === -1 ? bytes.length : after + 1
}

/**
 * The piece's rows, parsed from its text (the first piece) or its bytes decoded a slice at a time and
 * their line breaks normalised here (CsvChunks.ts). A row a slice leaves unfinished (a quoted line
 * break) is parsed again with the next slice, as the streamed reader carries it from one read to the
 * next. Returns false when the piece is not UTF-8 or does not parse to its very end (unless `last`).
 */
const eachRowOfPiece = (job: ChunkJob, onRow: (row: CsvRow) => void): boolean => {
  const delimiter = job.header.delimiter
  if (job.text !== undefined) return eachRowOfText(job.text, delimiter, job.line, job.last, onRow) === job.text.length || job.last
  const bytes = job.bytes
  if (bytes === undefined) return false
  let carried = ""
  let line = job.line
  let at = 0
  while (at < bytes.length) {
    const to = sliceEnd(bytes, at)
    const final = to === bytes.length
    let decoded: string
    try {
      decoded = new LineBreakNormaliser().push(decoder.decode(bytes.subarray(at, to)), true)
    } catch {
      return false
    }
    const text = carried + decoded
    const end = eachRowOfText(text, delimiter, line, final && job.last, onRow)
    if (final) return end === text.length || job.last
    line += countNewlines(text, 0, end)
    carried = text.slice(end)
    at = to
  }
  return true
}

export const validateChunk = (job: ChunkJob): ChunkResult => {
  const records = CsvRecordReader.after(job.header)
  const fast = fastCheckOf(job.header)
  const out = emptyFastRow()
  const c = new Columns()
  const ids = new TextColumn()
  const phones = new TextColumn()
  const amountsWritten = new TextColumn()
  const repeatKeys = new TextColumn()
  const names = new TextColumn()
  const rejected: Array<{ readonly at: number; readonly errors: ReadonlyArray<RowError> }> = []
  const valid = (i: number, id: string | undefined, phone: string, name: string, amountMinor: number, operator: string, currency: string, amountWritten: string) => {
    const h = fastHash64(repeatMaterial(phone, amountMinor, operator))
    c.flags[i] |= FLAG_VALID
    c.keyHi[i] = h.hi
    c.keyLo[i] = h.lo
    c.amounts[i] = amountMinor
    c.operators[i] = MOBILE_OPERATOR_CODES.indexOf(operator)
    c.currencies[i] = PAYOUT_CURRENCIES.indexOf(currency as PayoutCurrency)
    phones.push(phone)
    names.push(name)
    amountsWritten.push(amountWritten)
    // The sha256 only where the store will be asked about it: rows with ids are compared by id.
    repeatKeys.push(id === undefined ? repeatKeyOf(phone, amountMinor, operator) : "")
  }
  const start = (i: number, line: number, id: string | undefined) => {
    c.lines[i] = line
    c.flags[i] = 0
    ids.push(id ?? "")
    if (id !== undefined) {
      const h = fastHash64(canonicalId(id))
      c.idHi[i] = h.hi
      c.idLo[i] = h.lo
      c.flags[i] |= FLAG_ID
    }
  }
  const whole = eachRowOfPiece(job, (csvRow) => {
    if (fast !== undefined && csvRow.quoteProblem === undefined && fast(csvRow.cells, out)) {
      const i = c.next()
      start(i, csvRow.line, out.id)
      valid(i, out.id, out.phone, out.name, out.amountMinor, out.operator!.code, out.currency!, out.amountWritten)
      return
    }
    const record = records.record(csvRow)
    if (record === undefined) return
    const i = c.next()
    const row = checkFields(record, job.fileName, true)
    start(i, row.line, row.id)
    if (row._tag === "RejectedRow") {
      rejected.push({ at: i, errors: row.errors })
      phones.push("")
      names.push("")
      amountsWritten.push("")
      repeatKeys.push("")
      return
    }
    valid(i, row.id, row.phone, row.name, row.amountMinor, row.operator, row.currency, record.fields.amount?.trim() ?? "")
  })
  // Not UTF-8, or not cut between rows: the streamed reader reads the file and words what it finds.
  if (!whole) return { _tag: "Misaligned", seq: job.seq }
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
    ids: ids.join(),
    phones: phones.join(),
    amountsWritten: amountsWritten.join(),
    repeatKeys: repeatKeys.join(),
    names: names.join(),
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
