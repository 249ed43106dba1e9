import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "../../src/api/RetryAfter.ts"

const now = Date.parse("2025-03-01T12:00:00Z")

describe("parseRetryAfter", () => {
  it("reads delta seconds", () => {
    expect(parseRetryAfter("3", now)).toEqual(Option.some(3000))
    expect(parseRetryAfter(" 0 ", now)).toEqual(Option.some(0))
    expect(parseRetryAfter("1.5", now)).toEqual(Option.some(1500))
  })

  it("reads an HTTP date relative to now", () => {
    expect(parseRetryAfter("Sat, 01 Mar 2025 12:00:05 GMT", now)).toEqual(Option.some(5000))
    expect(parseRetryAfter("Saturday, 01-Mar-25 12:00:07 GMT", now)).toEqual(Option.some(7000))
  })

  it("treats a date in the past as now", () => {
    expect(parseRetryAfter("Sat, 01 Mar 2025 11:59:00 GMT", now)).toEqual(Option.some(0))
  })

  it("caps both forms", () => {
    expect(parseRetryAfter("86400", now)).toEqual(Option.some(MAX_RETRY_AFTER_MS))
    expect(parseRetryAfter("Sun, 02 Mar 2025 12:00:00 GMT", now)).toEqual(Option.some(MAX_RETRY_AFTER_MS))
    expect(parseRetryAfter("30", now, 10_000)).toEqual(Option.some(10_000))
  })

  it("ignores garbage", () => {
    for (const value of [undefined, null, "", "soon", "-1", "1e3", "0x10", "12 seconds", "Sat, 99 Foo"]) {
      expect(parseRetryAfter(value, now)).toEqual(Option.none())
    }
  })
})
