import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { formatAmount, fromWire, isKnownCurrency, minorDigits, parseAmount, toWire } from "../../src/domain/Money.ts"

const CURRENCIES = ["XAF", "XOF", "NGN", "GHS", "USD", "EUR"] as const
const positiveSafe = fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.maxSafeNat().filter((n) => n > 0))

const parsed = (text: string, currency: string) => Either.getOrUndefined(parseAmount(text, currency))
const refusal = (text: string, currency: string) => Either.flip(parseAmount(text, currency)).pipe(Either.getOrUndefined)

describe("Money", () => {
  it("knows the minor digits of each currency, and nothing from Object.prototype", () => {
    expect(CURRENCIES.map(minorDigits)).toEqual([0, 0, 2, 2, 2, 2])
    expect(isKnownCurrency("XAF")).toBe(true)
    expect(isKnownCurrency("toString")).toBe(false)
    expect(isKnownCurrency("constructor")).toBe(false)
    expect(minorDigits("constructor")).toBe(2)
  })

  it("parses plain decimals into minor units", () => {
    expect(parsed("5000", "XAF")).toBe(5000)
    expect(parsed(" 5000 ", "XOF")).toBe(5000)
    expect(parsed("5000.0", "XAF")).toBe(5000)
    expect(parsed("12.5", "NGN")).toBe(1250)
    expect(parsed("12.50", "NGN")).toBe(1250)
    expect(parsed("12.3400", "NGN")).toBe(1234)
    expect(parsed("100.50", "NGN")).toBe(10050)
    expect(parsed("100.00", "XOF")).toBe(100)
    expect(parsed("0.01", "GHS")).toBe(1)
    expect(parsed("+7", "XAF")).toBe(7)
    expect(parsed("007", "XAF")).toBe(7)
    expect(parsed(String(Number.MAX_SAFE_INTEGER), "XAF")).toBe(Number.MAX_SAFE_INTEGER)
  })

  it.each([
    ["1,000", "XAF", "thousands separators"],
    ["1 000", "XAF", "thousands separators"],
    ["1\u00a0000", "XOF", "thousands separators"],
    ["1'000", "XOF", "thousands separators"],
    ["12,50", "NGN", "thousands separators"],
    ["1e3", "XAF", "exponent"],
    ["1.5E2", "NGN", "exponent"],
    ["-5", "XAF", "greater than zero"],
    ["-0.5", "NGN", "greater than zero"],
    ["0", "XAF", "greater than zero"],
    ["0.00", "NGN", "greater than zero"],
    ["12.3456", "NGN", "more than 2 decimals"],
    ["100.000", "XAF", "ambiguous: thousands separator? XAF has no decimals: write 100000, or 100"],
    ["100.500", "XOF", "ambiguous: thousands separator?"],
    ["2.000", "NGN", "ambiguous: thousands separator? NGN has 2 decimals: write 2000, or 2.00"],
    ["12.345", "NGN", "ambiguous: thousands separator?"],
    ["1.000.000", "XAF", "ambiguous: thousands separator? write 1000000"],
    ["100.50", "XOF", "whole number for XOF"],
    ["0.500", "XAF", "whole number for XAF"],
    ["12.5", "XAF", "whole number for XAF"],
    ["0.5", "XOF", "whole number for XOF"],
    ["9007199254740992", "XAF", "too large"],
    ["90071992547409.92", "NGN", "too large"],
    ["99999999999999999999999", "XOF", "too large"],
    ["abc", "XAF", "not a decimal number"],
    ["abcde", "XAF", "not a decimal number"],
    ["", "XAF", "empty"],
    ["   ", "XAF", "empty"],
    [".5", "NGN", "not a decimal number"],
    ["5.", "NGN", "not a decimal number"],
    ["0x10", "XAF", "not a decimal number"],
    ["Infinity", "XAF", "not a decimal number"],
    ["NaN", "XAF", "not a decimal number"],
    ["١٢٣", "XAF", "not a decimal number"],
    ["5 XAF", "XAF", "not a decimal number"]
  ])("refuses %j for %s (%s)", (text, currency, reason) => {
    expect(refusal(text, currency)).toContain(reason)
  })

  it("parseAmount(formatAmount(m)) == m for every safe integer m > 0, in every currency", () => {
    fc.assert(
      fc.property(positiveSafe, fc.constantFrom(...CURRENCIES), (minor, currency) => {
        expect(parsed(formatAmount(minor, currency), currency)).toBe(minor)
      }),
      { numRuns: 2000 }
    )
  })

  it("formats plain decimals without separators", () => {
    expect(formatAmount(5000, "XAF")).toBe("5000")
    expect(formatAmount(125050, "NGN")).toBe("1250.50")
    expect(formatAmount(5, "USD")).toBe("0.05")
    expect(formatAmount(-5, "USD")).toBe("-0.05")
    expect(formatAmount(0, "XOF")).toBe("0")
    expect(formatAmount(Number.MAX_SAFE_INTEGER, "EUR")).toBe("90071992547409.91")
    fc.assert(
      fc.property(positiveSafe, fc.constantFrom(...CURRENCIES), (minor, currency) => {
        expect(formatAmount(minor, currency)).toMatch(/^[0-9]+(\.[0-9]{2})?$/)
      })
    )
  })

  it("fromWire(toWire(m)) == m: always for XAF/XOF, up to 15 significant digits for two-decimal currencies", () => {
    fc.assert(
      fc.property(positiveSafe, fc.constantFrom("XAF", "XOF"), (minor, currency) => {
        expect(fromWire(toWire(minor, currency), currency)).toBe(minor)
      }),
      { numRuns: 1000 }
    )
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }), fc.constantFrom("NGN", "GHS", "USD", "EUR"), (minor, currency) => {
        expect(fromWire(toWire(minor, currency), currency)).toBe(minor)
      }),
      { numRuns: 2000 }
    )
  })

  it("reads wire numbers that binary floats cannot hold exactly", () => {
    expect(fromWire(0.29, "NGN")).toBe(29)
    expect(fromWire(1.005, "USD")).toBe(101)
    expect(fromWire(4.35, "EUR")).toBe(435)
    expect(fromWire(1250.5, "NGN")).toBe(125050)
    expect(fromWire(5000, "XAF")).toBe(5000)
    expect(fromWire(-12.5, "GHS")).toBe(-1250)
    expect(fromWire(0, "XOF")).toBe(0)
    expect(fromWire(1e21, "XAF")).toBe(1e21)
    expect(toWire(125050, "NGN")).toBe(1250.5)
    expect(toWire(5000, "XAF")).toBe(5000)
  })
})
