import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import fc from "fast-check"
import { parseCsvBytes } from "../../src/intake/Csv.ts"
import { quoteCsv } from "../../src/output/CsvCells.ts"
import { collect } from "./support.ts"

const COLUMNS = ["id", "amount", "currency", "operator", "phone", "name", "email"] as const
const cell = fc.string({ unit: fc.constantFrom("a", "é", "€", "😀", " ", ",", ";", "\"", "\n", "\r\n", "\r", "x"), maxLength: 12 })

const splitBytes = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, p))
    from = p
  }
  return chunks
}

describe("CSV parsing, any content, any chunking", () => {
  it("reads back every cell with the physical line where its record starts", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(999), fc.array(cell, { minLength: 6, maxLength: 6 })), { minLength: 1, maxLength: 8 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.constantFrom(",", ";"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (rows, eol, delimiter, bom, cuts) => {
          const quote = (value: string) => (/[",;\r\n]/.test(value) ? `"${value.replace(/"/g, "\"\"")}"` : quoteCsv(value))
          const lines = [COLUMNS.join(delimiter), ...rows.map(([id, cells]) => [`R${id}`, ...cells].map(quote).join(delimiter))]
          const text = `${bom ? "\uFEFF" : ""}${lines.join(eol)}${eol}`
          const bytes = new TextEncoder().encode(text)
          const records = await Effect.runPromise(collect(parseCsvBytes(Stream.fromIterable(splitBytes(bytes, cuts)))))
          const got = Either.getOrThrow(records)
          let line = 2
          expect(got).toHaveLength(rows.length)
          rows.forEach(([id, cells], i) => {
            const expected = [`R${id}`, ...cells].map((c) => c.replace(/\r\n?/g, "\n"))
            expect(COLUMNS.map((c) => got[i].fields[c])).toEqual(expected)
            expect(got[i].line).toBe(line)
            line += 1 + expected.join("").split("\n").length - 1
          })
        }
      ),
      { numRuns: 300 }
    ))
})
