/** The cell checks' fast paths give exactly what the general ones give (ValidateRules.ts). */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { parseAmount } from "../../src/domain/Money.ts"
import { checkAmount, oneLine } from "../../src/intake/ValidateRules.ts"

describe("cell checks", () => {
  it("checkAmount gives parseAmount's answer for any cell made of digits, signs, dots, commas and spaces", () => {
    const cell = fc.oneof(
      fc.stringMatching(/^[0-9]{1,19}$/),
      fc.stringMatching(/^[ +\-0-9.,e]{0,12}$/),
      fc.bigInt({ min: 1n, max: 10n ** 18n }).map(String)
    )
    fc.assert(fc.property(cell, fc.constantFrom("XAF", "XOF", "NGN", "KWD", "EUR"), (raw, currency) => {
      expect(checkAmount(raw, currency)).toEqual(parseAmount(raw, currency))
    }), { numRuns: 20_000 })
    for (const raw of ["9007199254740991", "9007199254740992", "90071992547409", "900719925474099", "1000"]) {
      for (const currency of ["XAF", "NGN", "KWD"]) expect(checkAmount(raw, currency)).toEqual(parseAmount(raw, currency))
    }
  })

  it("oneLine makes every run of white space one space, whatever the text", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "  ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "é") })
    fc.assert(fc.property(text, (t) => {
      expect(oneLine(t)).toBe(t.trim().replace(/\s+/g, " "))
    }), { numRuns: 20_000 })
  })
})
