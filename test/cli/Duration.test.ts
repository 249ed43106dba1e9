import { describe, expect, it } from "@effect/vitest"
import { Duration, Either, Schema } from "effect"
import { DurationFromString, formatDuration, parseDuration } from "../../src/cli/Duration.ts"

const millis = (text: string) => Either.map(parseDuration(text), Duration.toMillis)

describe("parseDuration", () => {
  it("reads the units of DESIGN 10", () => {
    expect(millis("200ms")).toEqual(Either.right(200))
    expect(millis("1s")).toEqual(Either.right(1_000))
    expect(millis("5m")).toEqual(Either.right(300_000))
    expect(millis("26h")).toEqual(Either.right(93_600_000))
    expect(millis("2d")).toEqual(Either.right(172_800_000))
  })

  it("reads combinations, decimals, spaces around and upper case", () => {
    expect(millis("1h30m")).toEqual(Either.right(5_400_000))
    expect(millis("1m30s500ms")).toEqual(Either.right(90_500))
    expect(millis("1.5s")).toEqual(Either.right(1_500))
    expect(millis(" 10S ")).toEqual(Either.right(10_000))
    expect(millis("0s")).toEqual(Either.right(0))
  })

  it("refuses bare numbers, unknown units and garbage with a readable reason", () => {
    for (const text of ["", "5", "5 m", "5min", "m5", "-1s", "1s x", "1e3ms", "1h-30m", "s"]) {
      const result = parseDuration(text)
      expect(Either.isLeft(result), text).toBe(true)
      if (Either.isLeft(result)) expect(result.left).toContain("200ms, 1s, 5m, 26h")
    }
  })

  it("formats back to the short form", () => {
    expect(formatDuration(Duration.millis(90_500))).toBe("1m30s500ms")
    expect(formatDuration(Duration.hours(26))).toBe("26h")
    expect(formatDuration(Duration.hours(24))).toBe("24h")
    expect(formatDuration(Duration.zero)).toBe("0s")
  })

  it("round-trips through the schema used by options", () => {
    const decoded = Schema.decodeUnknownSync(DurationFromString)("5m")
    expect(Duration.toMillis(decoded)).toBe(300_000)
    expect(Schema.encodeSync(DurationFromString)(decoded)).toBe("5m")
    expect(() => Schema.decodeUnknownSync(DurationFromString)("5")).toThrow(/not a duration/)
  })
})
