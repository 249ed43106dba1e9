/**
 * A CSV file cut into pieces of whole rows, so worker threads can parse and check them apart: the
 * bytes are decoded and their line breaks normalised as the streamed reader (`CsvRowReader`) does, the
 * header is read here, and the text after it is cut at line breaks outside quotes. Anything unusual
 * (bad UTF-8, NUL bytes, UTF-16, a header too wide or wrong, a row that never ends, no rows) returns
 * undefined: the streamed reader then reads the file, and alone words every file-level problem.
 * Whether a cut really falls between two rows is for the parser to say: each worker checks that its
 * piece parses to its very end (see `rowsOfText`), else the file goes to the streamed reader too.
 */
import { Either } from "effect"
import { type CsvHeader, MAX_COLUMNS } from "./CsvHeader.ts"
import { CsvRecordReader } from "./CsvReader.ts"
import { isUtf16Bom, MAX_RECORD_CHARS, rowsOfText } from "./CsvRows.ts"
import { countNewlines, HeaderLineScan, LineBreakNormaliser } from "./CsvText.ts"

export interface TextChunk {
  /** 0, 1, 2, ... in file order. */
  readonly seq: number
  /** Whole rows: starts at a row's start and, unless `last`, ends after a line break. */
  readonly text: string
  /** The physical line where `text` starts. */
  readonly line: number
  readonly last: boolean
  readonly header: CsvHeader
}

/** Just after the last line break outside quotes (quotes counted, not parsed), 0 when there is none. */
const cutPoint = (text: string): number => {
  if (!text.includes("\"")) return text.lastIndexOf("\n") + 1
  let quoted = false
  let cut = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) quoted = !quoted
    else if (c === 10 && !quoted) cut = i + 1
  }
  return cut
}

export class CsvChunkSplitter {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true })
  private readonly lineBreaks = new LineBreakNormaliser()
  private readonly headerLine = new HeaderLineScan()
  private header: CsvHeader | undefined
  private pending = ""
  private line = 1
  private seq = 0
  private started = false

  /** `target`: the characters of text a chunk holds at least (but the last). */
  constructor(private readonly target: number) {}

  /** The chunks now ready; undefined: leave the file to the streamed reader. */
  push(bytes: Uint8Array): ReadonlyArray<TextChunk> | undefined {
    if (!this.started && isUtf16Bom(bytes)) return undefined
    this.started = true
    if (bytes.includes(0)) return undefined
    let text: string
    try {
      text = this.decoder.decode(bytes, { stream: true })
    } catch {
      return undefined
    }
    this.pending += this.lineBreaks.push(text, false)
    return this.cut(false)
  }

  end(): ReadonlyArray<TextChunk> | undefined {
    let text: string
    try {
      text = this.decoder.decode()
    } catch {
      return undefined
    }
    this.pending += this.lineBreaks.push(text, true)
    return this.cut(true)
  }

  private cut(last: boolean): ReadonlyArray<TextChunk> | undefined {
    if (this.pending.length < this.target && !last) return []
    const at = last ? this.pending.length : cutPoint(this.pending)
    if (at === 0 && !last) return this.pending.length > MAX_RECORD_CHARS ? undefined : []
    let text = this.pending.slice(0, at)
    this.pending = this.pending.slice(at)
    if (this.header === undefined) {
      const header = this.readHeader(text, last)
      if (header === undefined) return undefined
      this.header = header.header
      this.line += countNewlines(text, 0, header.end)
      text = text.slice(header.end)
    }
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
