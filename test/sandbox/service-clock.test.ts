/**
 * What the client believes of a declared sandbox clock (src/api/ServiceClock.ts): only from this
 * machine, only at a scale of at least 1, never from our future, and only while its Date agrees; and
 * across a jump of the clock, bounds that hold whatever jumps were missed.
 */
import { describe, expect, it } from "@effect/vitest"
import { clockTimes, makeServiceClock as makeClock, observeClock, parseClockLine } from "../../src/api/ServiceClock.ts"

const T0 = Date.UTC(2026, 10, 27, 12)
const HOUR = 60 * 60 * 1000
const header = (since: number, origin: number, scale: number) => `virtual; since=${since}; origin=${origin}; scale=${scale}`
/** The Date a sandbox on that line sends at our instant `now` (whole seconds). */
const dateAt = (since: number, origin: number, scale: number, now: number) => Math.floor((origin + (now - since) * scale) / 1000) * 1000

/** The client's clock value, threaded through its answers as the client's Ref does. */
const makeServiceClock = (baseUrl: URL) => {
  let clock = makeClock(baseUrl)
  return {
    observe: (nowMs: number, served: number, value: string | undefined) => {
      clock = observeClock(clock, nowMs, served, value)
    },
    times: () => clockTimes(clock)
  }
}

describe("a declared sandbox clock", () => {
  it("is read only in its exact form", () => {
    expect(parseClockLine(header(T0, T0 + HOUR, 60))).toEqual({ since: T0, origin: T0 + HOUR, scale: 60 })
    expect(parseClockLine("real; since=1; origin=2; scale=1")).toBeUndefined()
    expect(parseClockLine("virtual; since=x; origin=2; scale=1")).toBeUndefined()
    expect(parseClockLine(undefined)).toBeUndefined()
  })

  it("is believed from loopback, and translates our instants to its time", () => {
    const clock = makeServiceClock(new URL("http://127.0.0.1:4010/v1"))
    const now = T0 + 10_000
    clock.observe(now, dateAt(T0, T0, 600, now), header(T0, T0, 600))
    const times = clock.times()
    expect(times?.earliest(T0 + 1_000)).toBe(T0 + 600_000)
    expect(times?.latest(T0 + 1_000)).toBe(T0 + 600_000)
    expect(Math.abs(times?.skewMs ?? Infinity)).toBeLessThan(1_000)
    // Before the line began, the service's time cannot be told from below.
    expect(times?.earliest(T0 - 1)).toBeUndefined()
  })

  it.each([
    ["a service elsewhere", "https://api.payments.example/v1", header(T0, T0 + 5 * HOUR, 1), 1],
    ["a clock slower than real time", "http://localhost:4010/v1", header(T0, T0, 0.5), 0.5],
    ["a line from our future", "http://[::1]:4010/v1", header(T0 + HOUR, T0, 1), 1]
  ])("is not believed from %s", (_, url, value, scale) => {
    const clock = makeServiceClock(new URL(url))
    const now = T0 + 10_000
    clock.observe(now, dateAt(T0, T0, scale, now), value)
    expect(clock.times()).toBeUndefined()
  })

  it("keeps a Date that contradicts it as a skew (rule 7 then refuses)", () => {
    const clock = makeServiceClock(new URL("http://127.0.0.1:4010/v1"))
    const now = T0 + 10_000
    clock.observe(now, dateAt(T0, T0, 1, now) + HOUR, header(T0, T0, 1))
    expect(clock.times()?.skewMs).toBeGreaterThan(HOUR - 2_000)
  })

  it("is forgotten as soon as an answer comes without it", () => {
    const clock = makeServiceClock(new URL("http://127.0.0.1:4010/v1"))
    clock.observe(T0 + 1_000, dateAt(T0, T0, 60, T0 + 1_000), header(T0, T0, 60))
    expect(clock.times()).toBeDefined()
    clock.observe(T0 + 2_000, T0 + 2_000, undefined)
    expect(clock.times()).toBeUndefined()
  })

  it("across a jump: earlier instants are bounded from below by the old line and from above by the new", () => {
    const clock = makeServiceClock(new URL("http://127.0.0.1:4010/v1"))
    clock.observe(T0 + 1_000, dateAt(T0, T0, 60, T0 + 1_000), header(T0, T0, 60))
    // Advanced by two days at T0 + 5 s.
    const jump = T0 + 5_000
    const origin = T0 + 5_000 * 60 + 2 * 24 * HOUR
    clock.observe(jump + 1_000, dateAt(jump, origin, 60, jump + 1_000), header(jump, origin, 60))
    const times = clock.times()
    const before = T0 + 2_000
    expect(times?.earliest(before)).toBe(T0 + 2_000 * 60)
    expect(times?.latest(before)).toBeGreaterThanOrEqual(T0 + 2_000 * 60)
    expect(times?.latest(jump + 2_000)).toBe(origin + 2_000 * 60)
  })
})
