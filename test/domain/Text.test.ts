import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { canonicalId, hasInvisible, mixedScript } from "../../src/domain/Text.ts"
import { parseAmount } from "../../src/domain/Money.ts"
import { normaliseMobile } from "../../src/domain/Phone.ts"
import { mintToken } from "../../src/domain/Token.ts"
import { checkId, isSpreadsheetError } from "../../src/intake/ValidateRules.ts"

describe("canonicalId (issue 30: one identity for each id)", () => {
  it("makes one id of every way a spreadsheet or a keyboard writes it", () => {
    const same = [
      "S-1001",
      "s-1001",
      "S\uFF0D1001", // full-width hyphen-minus
      "\uFF33-\uFF11\uFF10\uFF10\uFF11", // full-width letter and digits
      "\u0405-1001", // Cyrillic capital dze
      "\u0455-1001", // Cyrillic small dze
      "S\u20131001", // en dash
      "S\u22121001", // minus sign
      "S-1001\u200B", // zero width space
      "\uFEFFS-10\u00AD01", // BOM, soft hyphen
      "S-1001\u0000",
      " S-1001 "
    ]
    for (const id of same) expect(canonicalId(id), JSON.stringify(id)).toBe("s-1001")
    expect(canonicalId("STRASSE")).toBe(canonicalId("straße"))
    expect(canonicalId("\u0412\u0415\u0422-\u0391\u039A")).toBe("bet-ak") // Cyrillic ВЕТ, Greek ΑΚ
    expect(canonicalId("S-1001")).not.toBe(canonicalId("S-1002"))
    expect(canonicalId("A B")).toBe("a b")
  })

  it("is its own canonical form, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 12 }), (text) => {
        const once = canonicalId(text)
        expect(canonicalId(once)).toBe(once)
      }),
      { numRuns: 3_000 }
    )
  })

  it("gives one token to the ways one id is written", () => {
    const token = (id: string) => mintToken("acct", { _tag: "Id", id, generation: 0 })
    expect(token("S\uFF0D1001")).toBe(token("s-1001"))
    expect(token("\u0405-1001")).toBe(token("S-1001"))
    expect(token("S-1001")).not.toBe(token("S-1002"))
  })
})

describe("an id a person cannot read right is refused (issue 30)", () => {
  const reason = (raw: string) => Either.match(checkId(raw), { onLeft: (l) => l, onRight: () => "accepted" })

  it("names an invisible, control or unusual space character by code point and position, never raw", () => {
    expect(reason("S-1001\u200B")).toBe(`id "S-1001<U+200B>" holds an invisible character U+200B at position 7: retype the id`)
    expect(reason("S-10\uFEFF01")).toBe(`id "S-10<U+FEFF>01" holds an invisible character U+FEFF at position 5: retype the id`)
    expect(reason("S\u00AD1")).toContain("U+00AD at position 2")
    expect(reason("S\u00A01")).toBe(`id "S<U+00A0>1" holds a space other than a plain space U+00A0 at position 2: retype the id`)
    expect(reason("S\t1")).toBe(`id "S<U+0009>1" holds a control character U+0009 at position 2: retype the id`)
    expect(reason("\u001B[31mS")).toContain("a control character U+001B at position 1")
    expect(reason("S-1\u2028")).toContain("U+2028 at position 4")
    for (const raw of ["S-1001\u200B", "S\u00A01", "\u001B[31mS"]) expect(hasInvisible(reason(raw))).toBe(false)
  })

  it("refuses letters of two scripts, naming the first of the second", () => {
    expect(reason("S-100\u0430")).toBe(`id "S-100\u0430" mixes letters of two scripts (Latin and Cyrillic): U+0430 at position 6 is Cyrillic: retype the id`)
    expect(reason("\u0391B")).toContain("(Greek and Latin): U+0042 at position 2 is Latin")
    expect(mixedScript("\u0405-1001")).toBeUndefined() // one script: a look-alike, compared as S
    expect(mixedScript("\u6771\u4EAC-1")).toBeUndefined()
  })

  it("trims plain spaces only, and keeps ids as written otherwise", () => {
    expect(checkId("  S-1001 ")).toEqual(Either.right("S-1001"))
    expect(checkId("   ")).toEqual(Either.right(undefined))
    expect(checkId("Ａ-1")).toEqual(Either.right("Ａ-1"))
    expect(checkId("Ѕ-1001")).toEqual(Either.right("Ѕ-1001"))
  })
})

describe("spreadsheet error values (issue 30)", () => {
  it("are the English and French error values, trimmed, in any case, and nothing else", () => {
    const errors = ["#REF!", "#N/A", "#VALUE!", "#DIV/0!", "#NAME?", "#NULL!", "#NUM!", "#SPILL!", "#CALC!", "#GETTING_DATA"]
    const french = ["#VALEUR!", "#NOM?", "#NUL!", "#NOMBRE!", "#PROPAGATION!"]
    for (const value of [...errors, ...french, " #ref! ", "#n/a", "#Valeur!"]) expect(isSpreadsheetError(value), value).toBe(true)
    for (const value of ["#REF", "REF!", "#1", "Shop #REF!", "", "#", "N/A"]) expect(isSpreadsheetError(value), value).toBe(false)
  })
})

describe("messages that quote a value (issue 30)", () => {
  it("show an amount's or a phone's invisible character by code point, never raw", () => {
    const left = (e: Either.Either<unknown, string>) => Either.match(e, { onLeft: (l) => l, onRight: () => "accepted" })
    expect(left(parseAmount("10\u200B00", "XAF"))).toBe(`amount "10<U+200B>00" is not a decimal number`)
    expect(left(normaliseMobile("677\u200B123456", "CM"))).toContain(`"677<U+200B>123456" is not a phone number`)
  })
})
