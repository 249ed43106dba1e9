/**
 * One chunk of a file checked on its own (on a worker thread): its rows parsed and each checked alone
 * (`checkFields`), with what the merge on the main thread needs to find duplicates and compare with
 * other batches, as columns: a few typed arrays and arrays of short strings cross between threads far
 * cheaper than one object per row.
 */
import { Either } from "effect"
import { MOBILE_OPERATOR_CODES, PAYOUT_CURRENCIES } from "../domain/Operators.ts"
import type { TextChunk } from "./CsvChunks.ts"
import { CsvRecordReader } from "./CsvReader.ts"
import { rowsOfText } from "./CsvRows.ts"
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

export const validateChunk = (job: ChunkJob): ChunkResult => {
  const { delimiter } = job.header
  const parsed = rowsOfText(job.text, delimiter, job.line, job.last)
  if (!job.last && parsed.end !== job.text.length) return { _tag: "Misaligned", seq: job.seq }
  const read = CsvRecordReader.after(job.header).rows(parsed.rows, delimiter)
  if (Either.isLeft(read)) return { _tag: "Misaligned", seq: job.seq }
  const records = read.right
  const n = records.length
  const out: ChunkRows = {
    _tag: "Rows",
    seq: job.seq,
    count: n,
    lines: new Int32Array(n),
    flags: new Uint8Array(n),
    idHi: new Uint32Array(n),
    idLo: new Uint32Array(n),
    keyHi: new Uint32Array(n),
    keyLo: new Uint32Array(n),
    amounts: new Float64Array(n),
    operators: new Uint8Array(n),
    currencies: new Uint8Array(n),
    ids: "",
    phones: "",
    amountsWritten: "",
    repeatKeys: "",
    rejected: []
  }
  const ids: Array<string> = []
  const phones: Array<string> = []
  const amountsWritten: Array<string> = []
  const repeatKeys: Array<string> = []
  for (let i = 0; i < n; i++) {
    const record = records[i]
    const row = checkFields(record, job.fileName)
    out.lines[i] = row.line
    ids.push(row.id ?? "")
    if (row.id !== undefined) {
      const h = fastHash64(row.id)
      out.idHi[i] = h.hi
      out.idLo[i] = h.lo
      out.flags[i] |= FLAG_ID
    }
    if (row._tag === "RejectedRow") {
      out.rejected.push({ at: i, errors: row.errors })
      phones.push("")
      amountsWritten.push("")
      repeatKeys.push("")
      continue
    }
    const material = repeatMaterial(row.phone, row.amountMinor, row.operator)
    const h = fastHash64(material)
    out.flags[i] |= FLAG_VALID
    out.keyHi[i] = h.hi
    out.keyLo[i] = h.lo
    out.amounts[i] = row.amountMinor
    out.operators[i] = MOBILE_OPERATOR_CODES.indexOf(row.operator)
    out.currencies[i] = PAYOUT_CURRENCIES.indexOf(row.currency)
    phones.push(row.phone)
    amountsWritten.push(record.fields.amount?.trim() ?? "")
    // The sha256 only where the store will be asked about it: rows with ids are compared by id.
    repeatKeys.push(row.id === undefined ? repeatKeyOf(row.phone, row.amountMinor, row.operator) : "")
  }
  return { ...out, ids: ids.join("\n"), phones: phones.join("\n"), amountsWritten: amountsWritten.join("\n"), repeatKeys: repeatKeys.join("\n") }
}

/** The buffers a result hands over to the receiving thread instead of copying them. */
export const transferables = (result: ChunkResult): Array<ArrayBuffer> =>
  result._tag === "Misaligned"
    ? []
    : [result.lines, result.flags, result.idHi, result.idLo, result.keyHi, result.keyLo, result.amounts, result.operators, result.currencies]
        .map((a) => a.buffer)
        .filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
