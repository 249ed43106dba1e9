import { describe, expect, it } from "vitest"
import { CsvChunkSplitter, type TextChunk } from "../../src/intake/CsvChunks.ts"
import { LineBreakNormaliser } from "../../src/intake/CsvText.ts"
import { type ChunkResult, validateChunk } from "../../src/intake/ValidateChunk.ts"

const HEADER = "id,amount,currency,operator,phone,name,email,description,meta.order"

/** Rows with quoted line breaks (most line feeds are inside quotes: a slice of a piece is often cut inside a cell), CRLF and accents. */
const lineOf = (i: number): string => {
  const cm = `+23767${String(1_000_000 + i).slice(-7)}`
  switch (i % 5) {
    case 0: return `Q-${i},${500 + i},XAF,carrier1_cm,${cm},Élodie ${i},q${i}@example.com,"a ""quoted""${"\nmulti".repeat(i % 37)}\r\nline ${i}",${i}`
    case 1: return `B-${i},10.5,XAF,carrier1_cm,${cm},Bad Amount,b${i}@example.com,,`
    case 2: return `P-${i},4000,XOF,carrier7_tg,90 ${String(100_000 + i).slice(-6)},"Name, With Comma",t${i}@example.com,,${i}`
    default: return `P-${i},${500 + i},XAF,carrier1_cm,${cm},Seller ${i},s${i}@example.com,Settlement ${i},${i % 97}`
  }
}

/** The file cut as the main thread cuts it: the first piece as text, the others as bytes. */
const piecesOf = (file: Uint8Array, target: number): ReadonlyArray<TextChunk> => {
  const splitter = new CsvChunkSplitter(target)
  const pieces: Array<TextChunk> = []
  for (let at = 0; at < file.length; at += 64 * 1024) pieces.push(...(splitter.push(file.subarray(at, at + 64 * 1024)) ?? []))
  pieces.push(...(splitter.end() ?? []))
  return pieces
}

/** The piece checked as one decoded text: how a worker read a piece before it decoded it a slice at a time. */
const asText = (piece: TextChunk): TextChunk =>
  piece.bytes === undefined
    ? piece
    : { ...piece, bytes: undefined, text: new LineBreakNormaliser().push(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(piece.bytes), true) }

const check = (piece: TextChunk): ChunkResult => validateChunk({ ...piece, fileName: "batch.csv" })

describe("a worker's check of a piece", () => {
  it("gives the same rows, lines and errors decoding its bytes a slice at a time as decoding them whole", () => {
    const file = new TextEncoder().encode([HEADER, ...Array.from({ length: 12_000 }, (_, i) => lineOf(i))].join("\r\n") + "\r\n")
    const pieces = piecesOf(file, 300 * 1024)
    expect(pieces.length).toBeGreaterThan(3)
    let rows = 0
    for (const piece of pieces) {
      const sliced = check(piece)
      expect(sliced).toEqual(check(asText(piece)))
      if (sliced._tag === "Rows") rows += sliced.count
    }
    expect(rows).toBe(12_000)
  })

  it("is misaligned, as before, for bad UTF-8 in a later slice or a quote left open at the piece's end", () => {
    const rows = Array.from({ length: 6_000 }, (_, i) => lineOf(i % 5 === 0 ? i + 1 : i)).join("\n") + "\n"
    const [first] = piecesOf(new TextEncoder().encode(`${HEADER}\n${lineOf(3)}\n`), 1024)
    const bytes = new TextEncoder().encode(rows)
    const bad = bytes.slice()
    bad[bytes.length - 100] = 0xff
    const open = new TextEncoder().encode(`${rows}P-1,1,XAF,carrier1_cm,+237677000001,"Open\n`)
    for (const piece of [bad, open]) {
      const job: TextChunk = { seq: 1, bytes: piece, line: 3, last: false, header: first.header }
      expect(check(job)).toEqual({ _tag: "Misaligned", seq: 1 })
    }
    expect(check({ seq: 1, bytes, line: 3, last: false, header: first.header })._tag).toBe("Rows")
  })
})
