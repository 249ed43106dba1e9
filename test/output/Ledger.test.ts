import { FileSystem } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Either, Exit, Fiber, Stream } from "effect"
import fc from "fast-check"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { csvRows } from "../../src/intake/Csv.ts"
import { csvFileErrorRows, CsvHeaderError } from "../../src/intake/CsvErrors.ts"
import { formatRowError, formatRowErrors, writeErrorsFile } from "../../src/output/ErrorsFile.ts"
import type { RowError } from "../../src/intake/RowError.ts"
import { LEDGER_COLUMNS, type LedgerRow, writeLedger, writeSummary } from "../../src/output/Ledger.ts"
import { cutText, escapeCell, neutraliseFormula } from "../../src/output/CsvCells.ts"
import { outputPaths, writeFileAtomic } from "../../src/output/AtomicFile.ts"
import { collect, FileSystemLive } from "../intake/support.ts"
import { tempDir } from "../kit/TempDir.ts"

const readCsv = (path: string) =>
  collect(csvRows(Stream.make(new Uint8Array(readFileSync(path))))).pipe(
    Effect.map(Either.getOrThrow),
    Effect.map((rows) => rows.map((r) => r.cells))
  )

const DANGEROUS = ["=", "+", "-", "@", "\t", "\r", "\n", "\u0000"]

describe("escapeCell", () => {
  it("prefixes a quote to every cell that starts like a formula, whatever follows", () =>
    fc.assert(
      fc.property(fc.constantFrom(...DANGEROUS), fc.string(), (lead, rest) => {
        const value = `${lead}${rest}`
        fc.pre(!/^[+-]?[0-9]+(\.[0-9]+)?$/.test(value))
        expect(neutraliseFormula(value)).toBe(`'${value}`)
        const cell = escapeCell(value)
        expect(cell.startsWith("'") || cell.startsWith(`"'`)).toBe(true)
      }),
      { numRuns: 2000 }
    ))

  it("leaves plain numbers, amounts and E.164 phones as they are", () =>
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer().map(String),
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 99 })).map(([a, b]) => `${a}.${String(b).padStart(2, "0")}`),
          fc.stringMatching(/^\+[1-9][0-9]{7,14}$/),
          fc.stringMatching(/^-[0-9]+\.[0-9]+$/)
        ),
        (value) => {
          expect(escapeCell(value)).toBe(value)
        }
      )
    ))

  it("leaves other cells alone and quotes as RFC 4180 says", () => {
    expect(escapeCell("Jean Mbarga")).toBe("Jean Mbarga")
    expect(escapeCell("Diop, Moussa")).toBe(`"Diop, Moussa"`)
    expect(escapeCell(`say "hi"`)).toBe(`"say ""hi"""`)
    expect(escapeCell("=HYPERLINK(\"http://x\")")).toBe(`"'=HYPERLINK(""http://x"")"`)
    expect(escapeCell("@SUM(A1)")).toBe("'@SUM(A1)")
    expect(escapeCell("-")).toBe("'-")
    expect(escapeCell("+237 677")).toBe("'+237 677")
    expect(escapeCell("1e3")).toBe("1e3")
    expect(escapeCell("\tx")).toBe("'\tx")
    expect(escapeCell(" x")).toBe(`" x"`)
    expect(escapeCell("a\nb")).toBe(`"a\nb"`)
    expect(escapeCell("")).toBe("")
  })

  it("reads back through the parser as the neutralised text", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: "binary" }).filter((s) => !s.includes("\u0000")), { minLength: 1, maxLength: 5 }), async (cells) => {
        const line = `${cells.map(escapeCell).join(",")}\n`
        const rows = await Effect.runPromise(collect(csvRows(Stream.make(new TextEncoder().encode(`h\n${line}`)))))
        const [, back] = Either.getOrThrow(rows).map((r) => r.cells)
        expect(back).toEqual(cells.map((c) => neutraliseFormula(c).replace(/\r\n?/g, "\n")))
      }),
      { numRuns: 300 }
    ))

  it("cuts values by characters, not UTF-16 units", () => {
    expect(cutText("abc", 100)).toBe("abc")
    expect(cutText("x".repeat(101), 100)).toBe(`${"x".repeat(99)}…`)
    expect(cutText("😀".repeat(100), 100)).toBe("😀".repeat(100))
  })
})

const row = (n: number, over: Partial<LedgerRow> = {}): LedgerRow => ({
  line: n + 1,
  id: `ID${n}`,
  operator: "carrier1_cm",
  currency: "XAF",
  amountMinor: 5000 + n,
  phone: "+237677123456",
  name: n === 1 ? "=cmd|' /C calc'!A0" : `Name ${n}`,
  status: "completed",
  reference: `TXN${n}`,
  feeMinor: 50,
  attempts: 1,
  error: null,
  submittedAt: DateTime.unsafeMake(1_700_000_000_000),
  updatedAt: new Date(1_700_000_060_000),
  ...over
})

describe("ledger and errors files", () => {
  it.live("writes the ledger atomically, readable back, without temp files", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "batch.ledger.csv")
      yield* writeLedger(path, Stream.range(1, 3).pipe(Stream.map((n) => row(n))))
      expect(readdirSync(dir)).toEqual(["batch.ledger.csv"])
      const rows = yield* readCsv(path)
      expect(rows[0]).toEqual([...LEDGER_COLUMNS])
      expect(rows[1]).toEqual(["2", "ID1", "carrier1_cm", "XAF", "5001", "+237677123456", "'=cmd|' /C calc'!A0", "completed", "TXN1", "50", "1", "", "2023-11-14T22:13:20.000Z", "2023-11-14T22:14:20.000Z", "", ""])
      expect(rows).toHaveLength(4)
      yield* writeLedger(path, Stream.make(row(9, { currency: "NGN", amountMinor: 125050, feeMinor: null, reference: null, status: "rejected", error: "-bad" })))
      const again = yield* readCsv(path)
      expect(again[1].slice(3, 12)).toEqual(["NGN", "1250.50", "+237677123456", "Name 9", "rejected", "", "", "1", "'-bad"])
      expect(readdirSync(dir)).toEqual(["batch.ledger.csv"])
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("a write that fails or is interrupted half-way leaves the old file whole, and no temp file", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "batch.ledger.csv")
      writeFileSync(path, "old complete ledger\n")
      const failing = Stream.concat(Stream.range(1, 5000).pipe(Stream.map((n) => row(n))), Stream.fail("store died"))
      const exit = yield* Effect.exit(writeLedger(path, failing))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(readFileSync(path, "utf8")).toBe("old complete ledger\n")
      expect(readdirSync(dir)).toEqual(["batch.ledger.csv"])

      const endless = Stream.repeatValue(row(1)).pipe(Stream.tap(() => Effect.yieldNow()))
      const fiber = yield* Effect.fork(writeLedger(path, endless))
      // Wait for the write to be under way (its temp file exists), however slow the machine.
      const tempsNow = () => readdirSync(dir).filter((f) => f.endsWith(".tmp"))
      while (tempsNow().length === 0) yield* Effect.sleep("5 millis")
      const temps = tempsNow()
      expect(temps.length).toBe(1)
      expect(temps[0].startsWith(".batch.ledger.csv.")).toBe(true)
      yield* Fiber.interrupt(fiber)
      expect(readFileSync(path, "utf8")).toBe("old complete ledger\n")
      expect(readdirSync(dir)).toEqual(["batch.ledger.csv"])
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("writeFileAtomic replaces the file only once the content is complete", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "x.json")
      writeFileSync(path, "before")
      const seen: Array<string> = []
      yield* writeFileAtomic(path, Stream.make("a", "b", "c").pipe(Stream.tap(() => Effect.sync(() => seen.push(readFileSync(path, "utf8"))))))
      expect(seen).toEqual(["before", "before", "before"])
      expect(readFileSync(path, "utf8")).toBe("abc")
      const fs = yield* FileSystem.FileSystem
      expect(yield* fs.exists(path)).toBe(true)
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("writes the errors file: values escaped and cut to 100 characters", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "batch.errors.csv")
      const errors: Array<RowError> = [
        { line: 3, column: "amount", value: "1,000", reason: `amount "1,000" must use "." for decimals and no thousands separators` },
        { line: 4, column: "name", value: "=HYPERLINK(\"x\")", reason: "name is bad" },
        { line: 5, column: "description", value: "d".repeat(5000), reason: "longer than 1000 characters (5000)" },
        ...csvFileErrorRows(new CsvHeaderError({ problems: [{ column: "iban", value: "iban", reason: `unknown column "iban"` }] }))
      ]
      yield* writeErrorsFile(path, Stream.fromIterable(errors))
      const rows = yield* readCsv(path)
      expect(rows).toEqual([
        ["line", "column", "value", "reason"],
        ["3", "amount", "1,000", `amount "1,000" must use "." for decimals and no thousands separators`],
        ["4", "name", "'=HYPERLINK(\"x\")", "name is bad"],
        ["5", "description", `${"d".repeat(99)}…`, "longer than 1000 characters (5000)"],
        ["1", "iban", "iban", `unknown column "iban"`]
      ])
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("writes the summary atomically as pretty JSON", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "batch.summary.json")
      const summary = { batch_id: "b1", counts: { completed: 2 }, exit_code: 0 }
      yield* writeSummary(path, summary)
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(summary)
      expect(readdirSync(dir)).toEqual(["batch.summary.json"])
    }).pipe(Effect.provide(FileSystemLive))
  )

  it("puts outputs beside the input or in --out", () => {
    expect(outputPaths("/jobs/pay-12.CSV")).toEqual({
      ledger: "/jobs/pay-12.ledger.csv",
      errors: "/jobs/pay-12.errors.csv",
      summary: "/jobs/pay-12.summary.json"
    })
    expect(outputPaths("jobs/a.b.csv", "/out").ledger).toBe("/out/a.b.ledger.csv")
    expect(existsSync("/jobs/pay-12.ledger.csv")).toBe(false)
  })
})

describe("errors for a person", () => {
  it("names file, line, column and reason; the value when the reason lacks it", () => {
    expect(formatRowError({ line: 3, column: "amount", value: "1,000", reason: `amount "1,000" is bad` }, "pay.csv")).toBe(
      `pay.csv line 3, column "amount": amount "1,000" is bad`
    )
    expect(formatRowError({ line: 4, column: "name", value: "\u001b[31mX", reason: "name contains control characters" }, "pay.csv")).toBe(
      `pay.csv line 4, column "name": name contains control characters (value "\\u001b[31mX")`
    )
    expect(formatRowError({ line: 5, column: "operator", value: "a\u001b[2Jb", reason: `unknown operator "a\u001b[2Jb"` }, "p.csv")).toBe(
      `p.csv line 5, column "operator": unknown operator "a\\u001b[2Jb"`
    )
    expect(formatRowError({ line: undefined, column: "", value: "", reason: "no rows: the file is empty" }, "pay.csv")).toBe(
      "pay.csv: no rows: the file is empty"
    )
  })

  it("stops after a limit and says how many are left", () => {
    const errors = Array.from({ length: 60 }, (_, i): RowError => ({ line: i + 2, column: "email", value: "", reason: "email is empty" }))
    const text = formatRowErrors(errors, { file: "pay.csv", limit: 50, errorsFile: "pay.errors.csv" })
    const lines = text.split("\n")
    expect(lines).toHaveLength(51)
    expect(lines[50]).toBe("... and 10 more errors (all in pay.errors.csv)")
  })
})
