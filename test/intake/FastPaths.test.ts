import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { normaliseMobile } from "../../src/domain/Phone.ts"
import { COUNTRIES, type Country } from "../../src/domain/Operators.ts"
import { resolveHeader } from "../../src/intake/CsvHeader.ts"
import { CsvRecordReader } from "../../src/intake/CsvReader.ts"
import { type CsvRow, eachRowOfPlainText, eachRowOfTextPapa } from "../../src/intake/CsvRows.ts"
import { mobileE164 } from "../../src/intake/PhoneFast.ts"
import { TextColumn } from "../../src/intake/TextColumn.ts"
import { checkFields } from "../../src/intake/Validate.ts"
import { emptyFastRow, fastCheckOf } from "../../src/intake/ValidateFast.ts"

type Each = typeof eachRowOfPlainText

const rowsBy = (each: Each, text: string, delimiter: string, last: boolean) => {
  const rows: Array<[CsvRow, number]> = []
  const end = each(text, delimiter, 7, last, (row, rowEnd) => rows.push([row, rowEnd]))
  return { end, rows }
}

const LONG = "x".repeat(1_500)
/** Anything but a quote: line feeds, carriage returns, BOMs, both delimiters, accents, emoji, empty cells, long cells. */
const plainText = fc
  .array(fc.constantFrom("a", "é", "😀", "\u0000", " ", "\t", ",", ";", "\n", "\r", "\r\n", "\n\n", "\uFEFF", LONG, "+237 677"), { maxLength: 40 })
  .map((parts) => parts.join(""))

describe("a text without quotes split by hand", () => {
  it("gives papaparse's rows, lines and ends", () =>
    fc.assert(
      fc.property(plainText, fc.constantFrom(",", ";"), fc.boolean(), (text, delimiter, last) => {
        expect(rowsBy(eachRowOfPlainText, text, delimiter, last)).toEqual(rowsBy(eachRowOfTextPapa, text, delimiter, last))
      }),
      { numRuns: 2_000 }
    ))
})

const PREFIXES = ["", "+", "0", "00", "+237", "+225", "+221", "+229", "+228", "+233", "+234", "+33", "+1", "+882", "+800", "00237", "0237", "+2376", "+22507", "6", "07", "01", "2"]
const phoneText = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.array(fc.constantFrom("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", " ", "-", ".", "(", ")", "/", "x", "#"), { maxLength: 14 }), fc.constantFrom("", " ", "  "))
  .map(([prefix, rest, pad]) => `${pad}${prefix}${rest.join("")}${pad}`)
/** Numbers near the five countries' ranges (their mobile examples and fixed-line starts, cut and filled at random): many valid, of every type. */
const NEAR: ReadonlyArray<readonly [Country, string, ReadonlyArray<string>]> = [
  ["CM", "237", ["671234567", "691234567", "222123456", "233123456", "800123456", "881234567"]],
  ["CI", "225", ["0123456789", "0701234567", "2720123456", "2120123456", "8001234567"]],
  ["SN", "221", ["701234567", "771234567", "331234567", "800123456", "881234567"]],
  ["BJ", "229", ["0195123456", "0190123456", "0121123456", "90123456", "21123456"]],
  ["TG", "228", ["90112345", "70123456", "22212345", "80012345"]]
]
const nearNumber = fc
  .tuple(fc.constantFrom(...NEAR), fc.nat(5), fc.nat(9), fc.stringMatching(/^[0-9]{11}$/), fc.constantFrom(0, 0, 0, 1, -1), fc.constantFrom("+", "", "00", "0"), fc.nat(12), fc.constantFrom(...COUNTRIES), fc.nat(4))
  .map(([[country, code, starts], which, keep, fill, longer, form, space, other, pick]) => {
    const start = starts[which % starts.length]
    const digits = (start.slice(0, keep) + fill).slice(0, start.length + longer)
    const text = form === "+" || form === "00" ? `${form}${code}${digits}` : `${form === "0" ? "0" : ""}${digits}`
    return [`${text.slice(0, space)} ${text.slice(space)}`, pick === 0 ? other : country] as const
  })

describe("the phone check of a valid row", () => {
  it("gives normaliseMobile's number, and nothing where it refuses", () =>
    fc.assert(
      fc.property(fc.oneof(fc.tuple(phoneText, fc.constantFrom(...COUNTRIES)), nearNumber), ([raw, country]) => {
        const slow = normaliseMobile(raw, country)
        expect(mobileE164(raw, country)).toBe(slow._tag === "Right" ? slow.right : undefined)
      }),
      { numRuns: 30_000 }
    ))
})

const HEADERS = [
  "id,amount,currency,operator,phone,name,email,description,meta.order",
  "amount,currency,operator,phone,name,email",
  "payout_id,amount,currency,operator,msisdn,name,email,reason,,meta.x",
  "Email,Phone Number,operator,currency,amount,customer_name,,external_id"
]
const CELLS = {
  id: ["P-1", " P-2 ", "", "a\u0001b", LONG, "Ünï😀"],
  amount: ["500", " 1000 ", "10.5", "0", "-5", "1,000", "abc", "", "999999999999999999", "0500"],
  currency: ["XAF", "xof", " XAF ", "NGN", "EUR", "", "ZZZ"],
  operator: ["carrier1_cm", "CARRIER7_TG", " carrier2_sn ", "cardnet1", "", "nope"],
  phone: ["+237671000000", "6 91000001", "90 123456", "07 12345678", "77 1234567", "222 22 22 22", "+33612345678", "12345", "", "call 677", "+237 67 100 00 00"],
  name: ["Seller 1", "  Two  Spaces ", "", "tab\there", "ctl\u0007", "Élodie"],
  email: ["s1@example.com", " s@example.com ", "not-an-email", "", `${"a".repeat(65)}@example.com`],
  description: ["Settlement", "", "multi\nline", "ctl\u0001", LONG],
  other: ["", "  ", "x", "42", LONG]
}

describe("the fast check of a row", () => {
  it("finds valid exactly the rows checkFields finds valid, with the same values", () => {
    let validRows = 0
    for (const line of HEADERS) {
      const header = resolveHeader(line.split(","), ",")
      if (header._tag === "Left") throw new Error(`bad test header ${line}`)
      const fast = fastCheckOf(header.right)
      const kinds = header.right.slots.map((slot) => (slot._tag === "Column" ? slot.column : "other"))
      fc.assert(
        fc.property(fc.tuple(...kinds.map((kind) => fc.oneof({ arbitrary: fc.constant(CELLS[kind][0]), weight: 4 }, { arbitrary: fc.constantFrom(...CELLS[kind]), weight: 1 }))), fc.integer({ min: -1, max: 1 }), (cells, extra) => {
          const row: CsvRow = { line: 9, cells: extra < 0 ? cells.slice(1) : extra > 0 ? [...cells, ""] : cells, quoteProblem: undefined }
          const record = CsvRecordReader.after(header.right).record(row)
          const slow = record === undefined ? undefined : checkFields(record, "f.csv", true)
          const out = emptyFastRow()
          const valid = fast !== undefined && fast(row.cells, out)
          expect(valid).toBe(slow?._tag === "ValidRow")
          if (valid) validRows++
          if (valid && slow?._tag === "ValidRow") {
            expect([out.id, out.phone, out.amountMinor, out.operator?.code, out.currency, out.amountWritten]).toEqual(
              [slow.id, slow.phone, slow.amountMinor, slow.operator, slow.currency, record?.fields.amount?.trim()]
            )
          }
        }),
        { numRuns: 3_000 }
      )
    }
    expect(validRows).toBeGreaterThan(1_000)
  })
})

describe("a column of texts kept as UTF-16 units", () => {
  it("joins to what an array of the same strings joins to", () =>
    fc.assert(
      fc.property(
        fc.oneof(
          // Without a surrogate (the typed array all along), and with (strings from the first one on).
          fc.array(fc.string({ unit: fc.constantFrom("a", "7", "+", " ", "é", "\uFEFF", "\u0000", "€", "\uFFFF"), maxLength: 30 }), { maxLength: 3_000 }),
          fc.array(fc.string({ unit: fc.constantFrom("a", "7", "+", " ", "é", "😀", "\uFEFF", "\uD800", "\uDC00", "\u0000", "€"), maxLength: 30 }), { maxLength: 3_000 })
        ),
        (texts) => {
          const column = new TextColumn()
          for (const text of texts) column.push(text)
          expect(column.join()).toBe(texts.join("\n"))
        }
      ),
      { numRuns: 500 }
    ))

  it("keeps a BOM that starts the first text", () => {
    const column = new TextColumn()
    column.push("\uFEFFP-1")
    column.push("P-2")
    expect(column.join()).toBe("\uFEFFP-1\nP-2")
  })
})
