import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  csvRows,
  parseCsvBytes,
  parseCsvChunks,
  parseCsvFile,
  parseCsvText
} from "../../src/intake/Csv.ts"
import { csvFileErrorRows } from "../../src/intake/CsvErrors.ts"
import { type CsvRecord, MAX_FIELD_CHARS } from "../../src/intake/CsvReader.ts"
import { collect, fixture, FileSystemLive, HEADER } from "./support.ts"
import { tempDir } from "../kit/TempDir.ts"

const records = (text: string) => collect(parseCsvText(text)).pipe(Effect.map(Either.getOrThrow))
const failure = <E, R>(stream: Stream.Stream<CsvRecord, E, R>) =>
  collect(stream).pipe(Effect.map((r) => Either.getOrThrowWith(Either.flip(r), () => new Error("expected a failure"))))
const row = (n: number) => `${n},5000,XAF,carrier1_cm,677123456,Name ${n},n${n}@example.cm`

describe("parseCsvFile", () => {
  it.live("reads a comma file: aliases, meta.*, quoted commas, quotes and newlines, start lines", () =>
    Effect.gen(function* () {
      const rows = yield* collect(parseCsvFile(fixture("payouts-valid.csv"))).pipe(Effect.map(Either.getOrThrow))
      expect(rows.map((r) => [r.line, r.index])).toEqual([[2, 0], [3, 1], [4, 2], [5, 3], [6, 4]])
      expect(rows[0].fields).toEqual({
        id: "S-1001",
        amount: "15000",
        currency: "XAF",
        operator: "carrier1_cm",
        phone: "677123456",
        name: "Jean Mbarga",
        email: "jean.mbarga@example.cm",
        description: "Settlement week 12"
      })
      expect(rows[0].meta).toEqual({ order: "ORD-1" })
      expect(rows[2].fields.name).toBe("Diop, Moussa")
      expect(rows[2].fields.description).toBe(`Refund "late" delivery`)
      expect(rows[4].fields.description).toBe("Two\nline description")
      expect(rows.every((r) => r.errors.length === 0)).toBe(true)
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("reads a semicolon file with a BOM, CRLF and aliased headers in any case", () =>
    Effect.gen(function* () {
      const rows = yield* collect(parseCsvFile(fixture("payouts-semicolon-bom-crlf.csv"))).pipe(Effect.map(Either.getOrThrow))
      expect(rows.map((r) => r.line)).toEqual([2, 3])
      expect(rows[0].fields).toEqual({
        id: "P1",
        amount: "5000",
        currency: "XAF",
        operator: "carrier2_cm",
        phone: "237650000000",
        name: "Ngo Bassa",
        email: "ngo@example.cm",
        description: "Prime"
      })
      expect(rows[1].fields.name).toBe("Fall; Ibrahima")
      expect(rows[1].fields.amount).toBe("6000")
      expect(rows[0].headers.id).toBe("Payout_ID")
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("fails with CsvReadError for a missing file", () =>
    Effect.gen(function* () {
      const error = yield* failure(parseCsvFile("/nonexistent/payouts.csv"))
      expect(error).toMatchObject({ _tag: "CsvReadError", reason: "no such file" })
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("reads in small chunks from disk with the same result", () =>
    Effect.gen(function* () {
      const whole = yield* collect(parseCsvFile(fixture("payouts-valid.csv"))).pipe(Effect.map(Either.getOrThrow))
      const small = yield* collect(parseCsvFile(fixture("payouts-valid.csv"), { chunkSize: 7 })).pipe(Effect.map(Either.getOrThrow))
      expect(small).toEqual(whole)
    }).pipe(Effect.provide(FileSystemLive))
  )
})

describe("line breaks and lines", () => {
  it.effect("CR-only and mixed line breaks count physical lines", () =>
    Effect.gen(function* () {
      const cr = yield* records(`${HEADER}\r${row(1)}\r"${"x"}\r\ny",5,XAF,carrier1_cm,677123456,N,e@x.cm\r${row(3)}`)
      expect(cr.map((r) => r.line)).toEqual([2, 3, 5])
      expect(cr[1].fields.id).toBe("x\ny")
      const mixed = yield* records(`${HEADER}\r\n${row(1)}\n${row(2)}\r${row(3)}\r\n`)
      expect(mixed.map((r) => [r.line, r.fields.id])).toEqual([[2, "1"], [3, "2"], [4, "3"]])
    })
  )

  it.effect("skips blank lines and rows of empty cells, keeping later lines right", () =>
    Effect.gen(function* () {
      const rows = yield* records(`\n${HEADER}\n\n${row(1)}\n,,,,,,\n   \n${row(2)}\n\n`)
      expect(rows.map((r) => [r.line, r.index])).toEqual([[4, 0], [7, 1]])
    })
  )

  it.effect("a last row without a line break is read", () =>
    Effect.gen(function* () {
      expect((yield* records(`${HEADER}\n${row(1)}`)).map((r) => r.line)).toEqual([2])
    })
  )
})

describe("header", () => {
  it.effect("matches names case-insensitively, trimmed, spaces and hyphens as underscores", () =>
    Effect.gen(function* () {
      const rows = yield* records(" ID ,AMOUNT,Currency,operator,Phone Number,recipient-name,EMAIL, Meta.Batch Ref \n1,5,XAF,o,p,n,e,R\n")
      expect(Object.keys(rows[0].fields).sort()).toEqual(["amount", "currency", "email", "id", "name", "operator", "phone"])
      expect(rows[0].meta).toEqual({ "Batch Ref": "R" })
      expect(rows[0].headers.phone).toBe("Phone Number")
      const camel = yield* records("amount,currency,operator,phoneNumber,name,email\n5,XAF,o,p,n,e\n")
      expect(camel[0].fields.phone).toBe("p")
    })
  )

  it.effect("refuses unknown columns by name, unless meta.*", () =>
    Effect.gen(function* () {
      const error = yield* failure(parseCsvText(`${HEADER},iban\n${row(1)},X\n`))
      expect(error._tag).toBe("CsvHeaderError")
      expect(error.message).toContain(`unknown column "iban"`)
      expect(error.message).toContain("meta.<key>")
    })
  )

  it.effect("refuses a tab- or pipe-separated file as such, saying a comma or a semicolon is expected (issue 30)", () =>
    Effect.gen(function* () {
      const tabs = yield* failure(parseCsvText(`${HEADER.replaceAll(",", "\t")}\n${row(1).replaceAll(",", "\t")}\n`))
      expect(tabs._tag).toBe("CsvHeaderError")
      expect(tabs.message).toBe("line 1: the file is tab-separated: payouts reads comma- or semicolon-separated files (save it as CSV)")
      const pipes = yield* failure(parseCsvText(`${HEADER.replaceAll(",", " | ")}|meta.x\n${row(1).replaceAll(",", "|")}|y\n`))
      expect(pipes.message).toBe("line 1: the file is pipe-separated (|): payouts reads comma- or semicolon-separated files (save it as CSV)")
      // A one-column header that is no known column split otherwise stays an unknown column, its tab shown.
      const other = yield* failure(parseCsvText("a\tb\n1\t2\n"))
      expect(other.message).toContain(`unknown column "a<U+0009>b"`)
    })
  )

  it.effect("refuses duplicate columns, also through aliases, and empty meta keys", () =>
    Effect.gen(function* () {
      const dup = yield* failure(parseCsvText(`${HEADER},Amount\n`))
      expect(dup.message).toContain(`duplicate column "Amount"`)
      const alias = yield* failure(parseCsvText(`${HEADER},msisdn\n`))
      expect(alias.message).toContain(`columns "phone" and "msisdn" both give phone`)
      const meta = yield* failure(parseCsvText(`${HEADER},meta.a,META.a,meta.\n`))
      expect(meta.message).toContain(`duplicate column "META.a"`)
      expect(meta.message).toContain(`needs a key after "meta."`)
    })
  )

  it.effect("names every missing required column", () =>
    Effect.gen(function* () {
      const error = yield* failure(parseCsvText("id,amount,currency,operator,phone\n1,5,XAF,o,p\n"))
      expect(error).toMatchObject({ _tag: "CsvHeaderError" })
      expect(error.message).toContain(`missing required column "name" (or customer_name, recipient_name)`)
      expect(error.message).toContain(`missing required column "email" (or customer_email)`)
    })
  )

  it.effect("an unnamed column (trailing delimiter) is allowed while empty", () =>
    Effect.gen(function* () {
      const rows = yield* records(`${HEADER},\n${row(1)},\n${row(2)},oops\n`)
      expect(rows[0].errors).toEqual([])
      expect(rows[1].errors).toEqual([{ line: 3, column: "column 8", value: "oops", reason: "a value in a column without a header" }])
    })
  )
})

describe("files refused whole", () => {
  it.effect("empty, blank, header-only and header-plus-blank-lines files: no rows", () =>
    Effect.gen(function* () {
      for (const [text, headerFound] of [["", false], ["\n\n  \n", false], [HEADER, true], [`${HEADER}\r\n`, true], [`${HEADER}\n\n,,,,,,\n`, true]] as const) {
        const error = yield* failure(parseCsvText(text))
        expect(error).toMatchObject({ _tag: "CsvNoRowsError", headerFound })
        expect(error.message).toMatch(/^no rows/)
      }
      expect((yield* failure(parseCsvText("\uFEFF"))).message).toBe("no rows: the file is empty")
    })
  )

  it.effect("invalid UTF-8 names the line", () =>
    Effect.gen(function* () {
      const latin1 = Buffer.concat([Buffer.from(`${HEADER}\n${row(1)}\n2,5,XAF,carrier1_cm,677123456,Ren`), Buffer.from([0xe9]), Buffer.from(",r@x.cm\n")])
      const error = yield* failure(parseCsvChunks([latin1]))
      expect(error).toMatchObject({ _tag: "CsvEncodingError", line: 3 })
      expect(error.message).toContain("invalid UTF-8")
      const truncated = yield* failure(parseCsvChunks([Buffer.concat([Buffer.from(`${HEADER}\n${row(1)}\n`), Buffer.from([0xc3])])]))
      expect(truncated.message).toContain("ends inside a character")
    })
  )

  it.effect("binary files and UTF-16 are refused", () =>
    Effect.gen(function* () {
      const binary = yield* failure(parseCsvChunks([Buffer.from(`${HEADER}\n${row(1)}\n`), Buffer.from([0x50, 0x4b, 0x03, 0x00, 0x14])]))
      expect(binary).toMatchObject({ _tag: "CsvEncodingError", line: 3 })
      expect(binary.message).toContain("NUL bytes")
      const utf16 = yield* failure(parseCsvChunks([Buffer.from(`\uFEFF${HEADER}\n`, "utf16le")]))
      expect(utf16.message).toContain("UTF-16")
    })
  )

  it.effect("a record longer than 16 MiB (a quote left open) stops the file, without reading it whole", () =>
    Effect.gen(function* () {
      const block = "x".repeat(64 * 1024)
      const chunks = Stream.concat(Stream.make(`${HEADER}\n${row(1)}\n"open`), Stream.repeatValue(`${block}\n`).pipe(Stream.take(300)))
      const encoder = new TextEncoder()
      const error = yield* failure(parseCsvBytes(chunks.pipe(Stream.map((c) => encoder.encode(c)))))
      expect(error).toMatchObject({ _tag: "CsvRecordTooLongError", line: 3 })
    })
  )
})

describe("too many columns", () => {
  const wide = (columns: number, sep = ",") =>
    [...HEADER.split(","), ...Array.from({ length: columns - 7 }, (_, i) => `meta.k${i}`)].join(sep)

  it.effect("256 columns are read; 257 are refused at the header, naming line 1 and the limit", () =>
    Effect.gen(function* () {
      const ok = yield* records(`${wide(256)}
${row(1)}${",x".repeat(249)}
`)
      expect(Object.keys(ok[0].meta)).toHaveLength(249)
      const error = yield* failure(parseCsvText(`${wide(257)}
${row(1)}${",x".repeat(250)}
`))
      expect(error._tag).toBe("CsvHeaderError")
      expect(csvFileErrorRows(error)).toEqual([
        { line: 1, column: "column 257", value: "", reason: "too many columns: the header has more than 256, at most 256 are allowed" }
      ])
      const semicolons = yield* failure(parseCsvText(`${wide(300, ";")}
`))
      expect(semicolons.message).toBe("line 1: too many columns: the header has more than 256, at most 256 are allowed")
      // After blank lines the header is split into cells first, and still refused.
      const late = yield* failure(parseCsvText(`\n\n${wide(300)}\n`))
      expect(late.message).toBe("line 1: too many columns: the header has 300, at most 256 are allowed")
    })
  )

  it.live("a header of a million columns is refused from its first chunk, without splitting it into cells", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "wide.csv")
      const header = Array.from({ length: 1_000_000 }, (_, i) => `c${i}`).join(",")
      writeFileSync(path, `${header}
${header}
`)
      const error = yield* failure(parseCsvFile(path))
      // "more than 256", not a count: the header was refused from its first chunk, never split into
      // its million cells (a header split into cells is refused with its count, as above).
      expect(error.message).toBe("line 1: too many columns: the header has more than 256, at most 256 are allowed")
    }).pipe(Effect.provide(FileSystemLive))
  )
})

describe("row errors", () => {
  it.effect("a wrong number of fields is an error of that row only", () =>
    Effect.gen(function* () {
      const rows = yield* records(`${HEADER}\n${row(1)}\n1,2,3\n${row(3)},extra\n${row(4)}\n`)
      expect(rows.map((r) => r.errors.map((e) => [e.line, e.reason]))).toEqual([
        [],
        [[3, "expected 7 fields as in the header, found 3"]],
        [[4, "expected 7 fields as in the header, found 8"]],
        []
      ])
      expect(rows[1].fields).toEqual({})
    })
  )

  it.effect("a field over 1,000 characters is a row error naming the column", () =>
    Effect.gen(function* () {
      const long = "y".repeat(MAX_FIELD_CHARS + 1)
      const rows = yield* records(`${HEADER}\n1,5,XAF,carrier1_cm,677123456,${long},e@x.cm\n${row(2)}\n`)
      expect(rows[0].errors).toEqual([{ line: 2, column: "name", value: "y".repeat(100), reason: "longer than 1000 characters (1001)" }])
      expect(rows[0].fields.name).toBeUndefined()
      expect(rows[0].fields.amount).toBe("5")
      expect(rows[1].errors).toEqual([])
      const exact = yield* records(`${HEADER}\n1,5,XAF,carrier1_cm,677123456,${"z".repeat(MAX_FIELD_CHARS)},e@x.cm\n`)
      expect(exact[0].errors).toEqual([])
    })
  )

  it.effect("a 5 MB quoted cell with line breaks is a row error, and later lines stay right", () =>
    Effect.gen(function* () {
      const huge = `${"a".repeat(1000)}\n`.repeat(5000)
      const text = `${HEADER}\n1,5,XAF,carrier1_cm,677123456,"${huge}",e@x.cm\n${row(2)}\n`
      const chunks: Array<string> = []
      for (let i = 0; i < text.length; i += 65536) chunks.push(text.slice(i, i + 65536))
      const rows = yield* collect(parseCsvChunks(chunks)).pipe(Effect.map(Either.getOrThrow))
      expect(rows[0].errors[0]).toMatchObject({ line: 2, column: "name", reason: `longer than 1000 characters (${huge.length})` })
      expect(rows[1]).toMatchObject({ line: 5003, errors: [] })
    })
  )

  it.effect("an unclosed quote at the end of the file is a row error", () =>
    Effect.gen(function* () {
      const rows = yield* records(`${HEADER}\n${row(1)}\n2,5,XAF,carrier1_cm,677123456,"Open,e@x.cm\n${row(3)}\n`)
      expect(rows).toHaveLength(2)
      expect(rows[1].errors[0]).toMatchObject({ line: 3, reason: "a quoted field is not closed" })
    })
  )
})

describe("generic rows", () => {
  it.effect("csvRows gives every row, header included", () =>
    Effect.gen(function* () {
      const rows = yield* collect(csvRows(Stream.make(new TextEncoder().encode("a;b\r\n1;\"x;y\"\r\n")))).pipe(Effect.map(Either.getOrThrow))
      expect(rows).toEqual([
        { line: 1, cells: ["a", "b"], quoteProblem: undefined },
        { line: 2, cells: ["1", "x;y"], quoteProblem: undefined }
      ])
    })
  )
})

describe("a large file", () => {
  it.effect("streams 200,000 rows produced lazily", () =>
    Effect.gen(function* () {
      const encoder = new TextEncoder()
      const bytes = Stream.concat(
        Stream.make(encoder.encode(`${HEADER}\n`)),
        Stream.range(1, 200_000).pipe(Stream.map((n) => encoder.encode(`${row(n)}\n`)))
      )
      const last = yield* parseCsvBytes(bytes).pipe(
        Stream.runFold({ count: 0, line: 0 }, (acc, r) => ({ count: acc.count + 1, line: r.line }))
      )
      expect(last).toEqual({ count: 200_000, line: 200_001 })
    })
  )
})

describe("files on disk", () => {
  it.live("line numbers from a file written with CRLF", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "crlf.csv")
      writeFileSync(path, `${HEADER}\r\n${row(1)}\r\n"a\r\nb",5,XAF,carrier1_cm,677123456,N,e@x.cm\r\n${row(3)}\r\n`)
      const rows = yield* collect(parseCsvFile(path, { chunkSize: 5 })).pipe(Effect.map(Either.getOrThrow))
      expect(rows.map((r) => [r.line, r.fields.id])).toEqual([[2, "1"], [3, "a\nb"], [5, "3"]])
    }).pipe(Effect.provide(FileSystemLive))
  )
})
