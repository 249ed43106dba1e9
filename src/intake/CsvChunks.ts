/**
 * A CSV file cut into pieces of whole rows, so worker threads can parse and check them apart. The
 * text after the last line break outside quotes is kept for the next piece; quotes and line feeds are
 * single bytes in UTF-8 (never part of a longer character), so the cuts are found in the bytes. The
 * first piece is decoded here and its header read (line breaks normalised as the streamed reader,
 * `CsvRowReader`, does); every later piece goes to its worker as bytes, moved, not copied, and is
 * decoded there (ValidateChunk.ts): this thread never holds the file as text, which was most of its
 * garbage. Anything unusual (NUL bytes, UTF-16, a header too wide or wrong, a row that never ends, no
 * rows) returns undefined, and bad UTF-8 in a later piece makes its worker answer "misaligned": the
 * streamed reader then reads the file, and alone words every file-level problem. Whether a cut really
 * falls between two rows is for the parser to say: each worker checks that its piece parses to its
 * very end (see `rowsOfText`), else the file goes to the streamed reader too.
 */
import { Either } from "effect"
import { type CsvHeader, MAX_COLUMNS } from "./CsvHeader.ts"
import { CsvRecordReader } from "./CsvReader.ts"
import { isUtf16Bom, MAX_RECORD_CHARS, rowsOfText } from "./CsvRows.ts"
import { countNewlines, HeaderLineScan, LineBreakNormaliser, lineBreaksBefore } from "./CsvText.ts"

export interface TextChunk {
  /** 0, 1, 2, ... in file order. */
  readonly seq: number
  /** Whole rows: starts at a row's start and, unless `last`, ends after a line break. The first piece as text (its header read off), the others as bytes. */
  readonly text?: string
  readonly bytes?: Uint8Array
  /** The physical line where the piece starts. */
  readonly line: number
  readonly last: boolean
  readonly header: CsvHeader
}

/** Just after the last line feed outside quotes (quotes counted, not parsed) in bytes[0, end), 0 when there is none. */
const cutPoint = (bytes: Uint8Array, end: number): number => {
  const view = bytes.subarray(0, end)
  if (!view.includes(34)) return view.lastIndexOf(10) + 1
  let quoted = false
  let cut = 0
  for (let i = 0; i < end; i++) {
    const c = view[i]
    if (c === 34) quoted = !quoted
    else if (c === 10 && !quoted) cut = i + 1
  }
  return cut
}

export class CsvChunkSplitter {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true })
  private readonly headerLine = new HeaderLineScan()
  private header: CsvHeader | undefined
  private pending = new Uint8Array(0)
  private used = 0
  private line = 1
  private seq = 0
  private started = false

  /** `target`: the bytes a piece holds at least (but the last). */
  constructor(private readonly target: number) {}

  /** The pieces now ready; undefined: leave the file to the streamed reader. `bytes` may be reused once this returns. */
  push(bytes: Uint8Array): ReadonlyArray<TextChunk> | undefined {
    if (!this.started && isUtf16Bom(bytes)) return undefined
    this.started = true
    if (bytes.includes(0)) return undefined
    if (this.used + bytes.length > this.pending.length) {
      const grown = new Uint8Array(Math.max(this.target + 256 * 1024, (this.used + bytes.length) * 2))
      grown.set(this.pending.subarray(0, this.used))
      this.pending = grown
    }
    this.pending.set(bytes, this.used)
    this.used += bytes.length
    return this.cut(false)
  }

  end(): ReadonlyArray<TextChunk> | undefined {
    return this.cut(true)
  }

  private cut(last: boolean): ReadonlyArray<TextChunk> | undefined {
    if (this.used < this.target && !last) return []
    const at = last ? this.used : cutPoint(this.pending, this.used)
    if (at === 0 && !last) return this.used > MAX_RECORD_CHARS ? undefined : []
    // A copy with a buffer of its own: it is moved to the worker.
    const piece = this.pending.slice(0, at)
    this.pending.copyWithin(0, at, this.used)
    this.used -= at
    if (this.header !== undefined) {
      const chunk: TextChunk = { seq: this.seq++, bytes: piece, line: this.line, last, header: this.header }
      // The piece starts after a line feed (or at the file's start): no CR before it to pair with.
      this.line += lineBreaksBefore(piece, piece.length, false)
      return [chunk]
    }
    let text: string
    try {
      text = new LineBreakNormaliser().push(this.decoder.decode(piece), true)
    } catch {
      return undefined
    }
    const header = this.readHeader(text, last)
    if (header === undefined) return undefined
    this.header = header.header
    this.line += countNewlines(text, 0, header.end)
    text = text.slice(header.end)
    const chunk: TextChunk = { seq: this.seq++, text, line: this.line, last, header: this.header }
    this.line += countNewlines(text, 0, text.length)
    return [chunk]
  }

  /** The header, read from the first piece as the streamed reader reads it, and where its row ends. */
  private readHeader(text: string, last: boolean): { header: CsvHeader; end: number } | undefined {
    this.headerLine.scan(text, MAX_COLUMNS)
    if (this.headerLine.columns > MAX_COLUMNS) return undefined
    const delimiter = this.headerLine.delimiter
    const { ends, rows } = rowsOfText(text, delimiter, 1, last)
    const records = new CsvRecordReader()
    for (let i = 0; i < rows.length; i++) {
      if (Either.isLeft(records.rows([rows[i]], delimiter))) return undefined
      const header = records.resolvedHeader
      if (header !== undefined) return { header, end: ends[i] }
    }
    return undefined
  }
}
