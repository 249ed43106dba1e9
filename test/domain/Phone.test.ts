import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { Country } from "../../src/domain/Operators.ts"
import { maskPhone, normaliseMobile } from "../../src/domain/Phone.ts"

const ok = (raw: string, country: Country) => Either.getOrUndefined(normaliseMobile(raw, country))
const why = (raw: string, country: Country) => Either.flip(normaliseMobile(raw, country)).pipe(Either.getOrUndefined)

// Real numbering plans (libphonenumber-js 1.13.16 metadata): mobiles, fixed lines, and the forms people type.
const MOBILES: ReadonlyArray<readonly [Country, string, ReadonlyArray<string>]> = [
  ["CM", "+237677123456", ["677123456", "6 77 12 34 56", "+237 6 77 12 34 56", "00237677123456", "237677123456", "677-12-34-56"]],
  ["CM", "+237650000000", ["650 00 00 00", "+237650000000"]],
  ["CI", "+2250701020304", ["0701020304", "07 01 02 03 04", "+225 07 01 02 03 04", "002250701020304", "2250701020304"]],
  ["CI", "+2250501020304", ["05 01 02 03 04", "+2250501020304"]],
  ["SN", "+221771234567", ["771234567", "77 123 45 67", "+221 77 123 45 67", "00221771234567", "221771234567"]],
  ["SN", "+221761234567", ["76 123 45 67"]],
  ["SN", "+221701234567", ["70 123 45 67"]],
  ["BJ", "+2290190123456", ["0190123456", "01 90 12 34 56", "+229 01 90 12 34 56", "2290190123456"]],
  ["BJ", "+2290197000000", ["01 97 00 00 00"]],
  ["TG", "+22890123456", ["90123456", "90 12 34 56", "+228 90 12 34 56", "0022890123456", "22890123456"]],
  ["TG", "+22870123456", ["70 12 34 56"]],
  ["TG", "+22899123456", ["99 12 34 56"]]
]

const FIXED_LINES: ReadonlyArray<readonly [Country, string]> = [
  ["CM", "+237 222 23 45 67"],
  ["CI", "27 21 23 45 67"],
  ["SN", "+221 33 821 23 45"],
  ["BJ", "+229 01 21 30 00 00"],
  ["TG", "+228 22 21 23 45"]
]

describe("Phone.normaliseMobile", () => {
  for (const [country, e164, forms] of MOBILES) {
    it(`accepts ${country} mobile ${e164} in national and international forms`, () => {
      for (const form of forms) expect(ok(form, country), form).toBe(e164)
    })
  }

  for (const [country, fixed] of FIXED_LINES) {
    it(`refuses the ${country} fixed line ${fixed}`, () => {
      expect(why(fixed, country)).toContain("not a mobile number (fixed line)")
    })
  }

  it("refuses a number of another country, naming both", () => {
    expect(why("+2250701020304", "CM")).toBe(`"+2250701020304" is a number of Côte d'Ivoire, not Cameroon`)
    expect(why("+237677123456", "SN")).toContain("Cameroon, not Senegal")
    expect(why("+22890123456", "BJ")).toContain("Togo, not Benin")
    expect(why("+33612345678", "TG")).toContain("FR, not Togo")
  })

  it("refuses Benin's old 8-digit numbers (10 digits since 2024)", () => {
    expect(why("97000000", "BJ")).toContain("not a valid Benin number")
    expect(why("+229 90 12 34 56", "BJ")).toContain("not a valid Benin number")
    expect(why("22990123456", "BJ")).toBeDefined()
  })

  it("refuses what is not a plain phone number", () => {
    expect(why("", "CM")).toBe("phone number is empty")
    expect(why("   ", "CM")).toBe("phone number is empty")
    expect(why("abc", "CM")).toContain("only digits")
    expect(why("call 677123456", "CM")).toContain("only digits")
    expect(why("677123456 ext. 12", "CM")).toContain("only digits")
    expect(why("=677123456", "CM")).toContain("only digits")
    expect(why("67712", "CM")).toBeDefined()
    expect(why("6771234567890", "CM")).toBeDefined()
    expect(why("0677123456", "CM")).toContain("not a valid Cameroon number")
    expect(why("0701020304", "SN")).toBeDefined()
  })

  it("masks numbers for logs", () => {
    expect(maskPhone("+237677123456")).toBe("+237*******56")
    expect(maskPhone("+2376")).toBe("***")
  })
})
