import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseCsvText } from "../../src/intake/Csv.ts"
import type { RowError } from "../../src/intake/RowError.ts"
import { validateCsvFile, validateRows } from "../../src/intake/Validate.ts"
import type { CheckedRow, RejectedRow, ValidRow } from "../../src/intake/CheckRecord.ts"
import { hash64, LineTable, repeatKeyOf } from "../../src/intake/ValidateKeys.ts"
import { collect, fixture, FileSystemLive, HEADER } from "./support.ts"

const check = (text: string, options: { allowRepeats?: boolean } = {}) =>
  collect(parseCsvText(text).pipe(validateRows({ fileName: "batch.csv", ...options }))).pipe(Effect.map(Either.getOrThrow))

const errorsOf = (row: CheckedRow): ReadonlyArray<RowError> => (row._tag === "RejectedRow" ? row.errors : [])
const valid = (row: CheckedRow): ValidRow => {
  if (row._tag !== "ValidRow") throw new Error(JSON.stringify(row.errors))
  return row
}

const GOOD = "5000,XAF,carrier1_cm,677123456,Jean Mbarga,jean@example.cm"

describe("validateRows", () => {
  it.live("accepts the sample file, normalising every field", () =>
    Effect.gen(function* () {
      const rows = yield* collect(validateCsvFile(fixture("payouts-valid.csv"), { fileName: "payouts-valid.csv" })).pipe(
        Effect.map(Either.getOrThrow)
      )
      expect(rows.map((r) => r._tag)).toEqual(Array(5).fill("ValidRow"))
      const [cm, ci, sn, bj, tg] = rows.map(valid)
      expect(cm).toEqual({
        _tag: "ValidRow",
        line: 2,
        index: 0,
        id: "S-1001",
        amountMinor: 15000,
        currency: "XAF",
        operator: "carrier1_cm",
        country: "CM",
        phone: "+237677123456",
        name: "Jean Mbarga",
        email: "jean.mbarga@example.cm",
        description: "Settlement week 12",
        details: { order: "ORD-1" }
      })
      expect(ci).toMatchObject({ phone: "+2250701020304", country: "CI", description: "Payout S-1002" })
      expect(sn).toMatchObject({ name: "Diop, Moussa", description: `Refund "late" delivery`, details: {} })
      expect(bj.phone).toBe("+2290190123456")
      expect(tg).toMatchObject({ line: 6, phone: "+22890123456", description: "Two line description" })
      expect(repeatKeyOf(cm.phone, cm.amountMinor, cm.operator)).toMatch(/^[0-9a-f]{16}$/)
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.live("names line, column and reason for every rule", () =>
    Effect.gen(function* () {
      const rows = yield* collect(validateCsvFile(fixture("payouts-invalid.csv"), { fileName: "payouts-invalid.csv" })).pipe(
        Effect.map(Either.getOrThrow)
      )
      expect(rows.map((r) => errorsOf(r).map((e) => [e.line, e.column, e.value, e.reason]))).toEqual([
        [[2, "amount", "1,000", `amount "1,000" must use "." for decimals and no thousands separators`]],
        [[3, "amount", "12.5", "amount must be a whole number for XAF"]],
        [[4, "currency", "NGN", "no payout operator serves NGN: payouts are in XAF or XOF"]],
        [[5, "currency", "XOF", "carrier1_cm pays in XAF, not XOF"]],
        [[6, "operator", "carrier9_cm", expect.stringContaining(`unknown operator "carrier9_cm": expected one of carrier1_cm,`)]],
        [[7, "phone", "222234567", `"222234567" is not a mobile number (fixed line)`]],
        [[8, "name", "", "name is empty"]],
        [[9, "email", "not-an-email", `"not-an-email" is not a valid e-mail address`]],
        [[10, "id", "A1", `duplicate id "A1": first used on line 2`]]
      ])
    }).pipe(Effect.provide(FileSystemLive))
  )

  it.effect("reports every problem of a row at once, with the header's own names", () =>
    Effect.gen(function* () {
      const [row] = yield* check("Payout_ID,Amount,Currency,Operator,MSISDN,Customer_Name,Customer_Email\n,abc,GHS,cardnet1,x,,a@b\n")
      expect(errorsOf(row).map((e) => [e.column, e.reason])).toEqual([
        ["Operator", "cardnet1 is a card operator: payouts go to mobile money operators"],
        ["Currency", "no payout operator serves GHS: payouts are in XAF or XOF"],
        ["Customer_Name", "name is empty"],
        ["Customer_Email", `"a@b" is not a valid e-mail address`]
      ])
    })
  )

  it.effect("amount rules: thousands separators, exponents, zero, negatives, decimals of XOF", () =>
    Effect.gen(function* () {
      const amounts = ["1 000", "1e3", "0", "0.00", "-5", "12.5", "", "5000.00"]
      const rows = yield* check(`${HEADER}\n${amounts.map((a, i) => `${i},"${a}",XOF,carrier7_tg,90123456,N,n@x.tg`).join("\n")}\n`)
      expect(rows.map((r) => errorsOf(r).map((e) => [e.column, e.reason]))).toEqual([
        [["amount", `amount "1 000" must use "." for decimals and no thousands separators`]],
        [["amount", `amount "1e3" must be a plain decimal, not an exponent`]],
        [["amount", "amount must be greater than zero"]],
        [["amount", "amount must be greater than zero"]],
        [["amount", "amount must be greater than zero"]],
        [["amount", "amount must be a whole number for XOF"]],
        [["amount", "amount is empty"]],
        []
      ])
      expect(valid(rows[7]).amountMinor).toBe(5000)
    })
  )

  it.effect("an amount with decimals its currency cannot have is refused as ambiguous, with line and column", () =>
    Effect.gen(function* () {
      const rows = yield* check(
        `${HEADER}\n1,100.000,XAF,carrier1_cm,677123456,N,n@x.cm\n2,1.500.000,XOF,carrier7_tg,90123456,N,n@x.tg\n3,100.50,XOF,carrier7_tg,90123457,N,n@x.tg\n4,100.00,XOF,carrier7_tg,90123458,N,n@x.tg\n`
      )
      expect(errorsOf(rows[0])).toEqual([
        { line: 2, column: "amount", value: "100.000", reason: `amount "100.000" is ambiguous: thousands separator? XAF has no decimals: write 100000, or 100` }
      ])
      expect(errorsOf(rows[1])).toEqual([
        { line: 3, column: "amount", value: "1.500.000", reason: `amount "1.500.000" is ambiguous: thousands separator? write 1500000` }
      ])
      // XOF has no minor unit: 100.50 is no amount of it, and 100.00 is a hundred.
      expect(errorsOf(rows[2])).toEqual([{ line: 4, column: "amount", value: "100.50", reason: "amount must be a whole number for XOF" }])
      expect(valid(rows[3]).amountMinor).toBe(100)
    })
  )

  it.effect("currency and operator: case-insensitive codes, USD and unknown currencies", () =>
    Effect.gen(function* () {
      const rows = yield* check(`${HEADER}\n1,5,xaf,CARRIER1_CM,677123456,N,n@x.cm\n2,5,USD,carrier1_cm,677123456,N,n@x.cm\n3,5,ABC,carrier1_cm,677123456,N,n@x.cm\n4,5,,,677123456,N,n@x.cm\n`)
      expect(valid(rows[0])).toMatchObject({ currency: "XAF", operator: "carrier1_cm" })
      expect(errorsOf(rows[1])[0].reason).toBe("USD is not a payout currency: payouts are in XAF or XOF")
      expect(errorsOf(rows[2])[0].reason).toBe(`unknown currency "ABC": payouts are in XAF or XOF`)
      expect(errorsOf(rows[3]).map((e) => e.reason)).toEqual(["operator is empty", "currency is empty"])
    })
  )

  it.effect("phones: the operator's country, mobile only, E.164", () =>
    Effect.gen(function* () {
      const rows = yield* check(
        `${HEADER}\n1,5,XOF,carrier1_bj,+229 01 90 12 34 56,N,n@x.bj\n2,5,XOF,carrier1_bj,97000000,N,n@x.bj\n3,5,XOF,carrier2_sn,+2250701020304,N,n@x.sn\n4,5,XOF,carrier2_sn,,N,n@x.sn\n`
      )
      expect(valid(rows[0]).phone).toBe("+2290190123456")
      expect(errorsOf(rows[1])[0]).toMatchObject({ line: 3, column: "phone", reason: `"97000000" is not a valid Benin number` })
      expect(errorsOf(rows[2])[0].reason).toBe(`"+2250701020304" is a number of Côte d'Ivoire, not Senegal`)
      expect(errorsOf(rows[3])[0].reason).toBe("phone number is empty")
    })
  )

  it.effect("names and descriptions are made one line; control characters are refused", () =>
    Effect.gen(function* () {
      const rows = yield* check(
        `${HEADER},description\n1,5,XAF,carrier1_cm,677123456,"  Jean\n  Mbarga ",j@x.cm,"a\tb"\n2,5,XAF,carrier1_cm,677123457,"J\u0007",j@x.cm,\n,5,XAF,carrier1_cm,677123458,Ann,a@x.cm,\n`
      )
      expect(valid(rows[0])).toMatchObject({ name: "Jean Mbarga", description: "a b" })
      expect(errorsOf(rows[1])[0]).toMatchObject({ column: "name", reason: "name contains control characters" })
      expect(valid(rows[2]).description).toBe("Payout batch.csv line 5")
    })
  )

  it.effect("duplicate ids within the file are refused, naming the first line", () =>
    Effect.gen(function* () {
      const rows = yield* check(`${HEADER}\nX,${GOOD}\nY,5000,XAF,carrier1_cm,677123457,A,a@x.cm\nX,6000,XAF,carrier1_cm,677123458,B,b@x.cm\n`)
      expect(rows.map((r) => r._tag)).toEqual(["ValidRow", "ValidRow", "RejectedRow"])
      expect(errorsOf(rows[2])).toEqual([{ line: 4, column: "id", value: "X", reason: `duplicate id "X": first used on line 2` }])
    })
  )

  it.effect("exact repeats of (phone, amount, operator) are refused unless ids differ or repeats are allowed", () =>
    Effect.gen(function* () {
      const text = [
        HEADER,
        `,${GOOD}`,
        `,5000.0,XAF,carrier1_cm,+237 677 12 34 56,JEAN  Mbarga,o@x.cm`, // one recipient: one phone, one name (folded)
        `A,${GOOD}`,
        `B,${GOOD.replace("5000", "7000")}`,
        `C,${GOOD.replace("5000", "7000")}`,
        `,${GOOD.replace("5000", "7000")}`
      ].join("\n")
      const rows = yield* check(text)
      expect(rows.map((r) => r._tag)).toEqual(["ValidRow", "RejectedRow", "RejectedRow", "ValidRow", "ValidRow", "RejectedRow"])
      expect(errorsOf(rows[1])[0]).toMatchObject({
        line: 3,
        column: "phone+amount+operator",
        value: "+237677123456 5000.0 carrier1_cm",
        reason: expect.stringContaining("same phone, amount and operator as line 2 without distinct ids")
      })
      expect(errorsOf(rows[2])[0].reason).toContain("as line 2")
      expect(errorsOf(rows[5])[0].reason).toContain("as line 5")
      const allowed = yield* check(text, { allowRepeats: true })
      expect(allowed.every((r) => r._tag === "ValidRow")).toBe(true)
      const keys = new Set(allowed.map((r) => valid(r)).map((r) => repeatKeyOf(r.phone, r.amountMinor, r.operator)))
      expect(keys.size).toBe(2)
    })
  )

  it.effect("rows the parser could not read keep the parser's error", () =>
    Effect.gen(function* () {
      const [row] = yield* check(`${HEADER}\n1,2,3\n`)
      const rejected = row as RejectedRow
      expect(rejected.errors).toEqual([{ line: 2, column: "", value: "", reason: "expected 7 fields as in the header, found 3" }])
      const [long] = yield* check(`${HEADER}\n1,5,XAF,carrier1_cm,677123456,${"n".repeat(1001)},n@x.cm\n`)
      expect(errorsOf(long).map((e) => e.column)).toEqual(["name"])
    })
  )

  it.effect("rejected rows keep their cells for a ledger of rejected rows", () =>
    Effect.gen(function* () {
      const [row] = yield* check(`${HEADER},meta.ref\n1, 12.5 ,XAF,carrier1_cm,677123456,N,n@x.cm,R9\n`)
      expect(row).toMatchObject({
        _tag: "RejectedRow",
        id: "1",
        cells: { id: "1", amount: "12.5", currency: "XAF", operator: "carrier1_cm", phone: "677123456", name: "N", email: "n@x.cm" },
        amountMinor: undefined,
        details: { ref: "R9" }
      })
    })
  )

  it.effect("checks 20,000 rows with the hashed duplicate tables", () =>
    Effect.gen(function* () {
      const lines = [HEADER]
      for (let i = 0; i < 20_000; i++) lines.push(`ID${i},${1000 + i},XAF,carrier1_cm,6${String(77000000 + i)},N,n@x.cm`)
      lines.push(`ID7,${GOOD}`)
      const rows = yield* check(lines.join("\n"))
      expect(rows.filter((r) => r._tag === "RejectedRow").map((r) => errorsOf(r)[0].reason)).toEqual([`duplicate id "ID7": first used on line 9`])
    })
  )
})

describe("LineTable", () => {
  it("keeps the first line of each hash through growth", () => {
    const table = new LineTable()
    for (let i = 0; i < 50_000; i++) expect(table.addOrGet(hash64(`k${i}`), i + 2)).toBeUndefined()
    expect(table.size).toBe(50_000)
    for (let i = 0; i < 50_000; i += 997) expect(table.addOrGet(hash64(`k${i}`), 1)).toBe(i + 2)
    expect(table.get(hash64("absent"))).toBeUndefined()
    expect(table.get({ hi: 0, lo: 0 })).toBeUndefined()
  })
})
