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
  readonly ids: Array<string | null>
  /** Valid rows: E.164 number and the amount cell as written; "" for the others. */
  readonly phones: Array<string>
  readonly amountsWritten: Array<string>
  /** Valid rows without an id: the repeat key compared with other batches. */
  readonly repeatKeys: Array<string | null>
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
    ids: [],
    phones: [],
    amountsWritten: [],
    repeatKeys: [],
    rejected: []
  }
  for (let i = 0; i < n; i++) {
    const record = records[i]
    const row = checkFields(record, job.fileName)
    out.lines[i] = row.line
    out.ids.push(row.id ?? null)
    if (row.id !== undefined) {
      const h = fastHash64(row.id)
      out.idHi[i] = h.hi
      out.idLo[i] = h.lo
      out.flags[i] |= FLAG_ID
    }
    if (row._tag === "RejectedRow") {
      out.rejected.push({ at: i, errors: row.errors })
      out.phones.push("")
      out.amountsWritten.push("")
      out.repeatKeys.push(null)
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
    out.phones.push(row.phone)
    out.amountsWritten.push(record.fields.amount?.trim() ?? "")
    // The sha256 only where the store will be asked about it: rows with ids are compared by id.
    out.repeatKeys.push(row.id === undefined ? repeatKeyOf(row.phone, row.amountMinor, row.operator) : null)
  }
  return out
}

/** The buffers a result hands over to the receiving thread instead of copying them. */
export const transferables = (result: ChunkResult): Array<ArrayBuffer> =>
  result._tag === "Misaligned"
    ? []
    : [result.lines, result.flags, result.idHi, result.idLo, result.keyHi, result.keyLo, result.amounts, result.operators, result.currencies]
        .map((a) => a.buffer)
        .filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
