/**
 * The resend rules under a declared sandbox clock (issue 31 item 10, src/run/ResendRules.ts): the days
 * that must be read completely are the service's days of our instants; the clock only translates
 * times, so a listing that does not place our own payouts where the clock says, or an intent the
 * clock cannot place, still waits.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ServiceTimes } from "../../src/api/ServiceClock.ts"
import { waitText } from "../../src/cli/WaitText.ts"
import { withToken } from "../../src/domain/Token.ts"
import { MinorUnits } from "../../src/domain/Ids.ts"
import { DAY_MS, dayOf, daysBetween } from "../../src/run/ListingDays.ts"
import { decide, type Decision, type Evidence, MAX_SKEW_MS, serviceDaysNeeded, type UnknownRow } from "../../src/run/ResendRules.ts"
import type { KnownPayout, MirroredPayout } from "../../src/store/MirrorModel.ts"

/** A decision as `payouts run` tells it: a wait's reason in words. */
const worded = (d: Decision) => (d._tag === "Wait" ? { ...d, reason: waitText(d.reason) } : d)

const MIN = 60_000
const START = Date.UTC(2026, 10, 27, 9)
const SCALE = 600
/** A sandbox started at START, 600 sandbox seconds per real second. */
const scaled: ServiceTimes = {
  earliest: (ms) => (ms < START ? undefined : START + (ms - START) * SCALE),
  latest: (ms) => START + (ms - START) * SCALE,
  skewMs: 0
}
const INTENT = START + 2 * MIN
const ENDED = INTENT + 1_000
const NOW = ENDED + 40 * MIN
const TOKEN = "rowtokenaaaa"

const row: UnknownRow = { idx: 1, token: TOKEN, amountMinor: 5000, currency: "XAF", intentAt: INTENT, endedAt: ENDED, resends: 0, ownedHere: true, misses: [ENDED + 5 * MIN, ENDED + 25 * MIN] }

const witness = (i: number, answeredAt: number): KnownPayout => ({
  reference: `W${i}`,
  token: `witness${i}aaaa`.slice(0, 12),
  amountMinor: 1000 + i,
  currency: "XAF",
  answeredAt,
  listedAt: answeredAt + MIN,
  listedPrevRead: answeredAt
})
const WITNESSES = [witness(1, INTENT - MIN), witness(2, INTENT - MIN / 2), witness(3, ENDED + MIN)]

/** Our payout as the sandbox lists it: on the service's day of its answer, unless `day` says otherwise. */
const listed = (k: KnownPayout, day = dayOf(scaled.latest(k.answeredAt))): MirroredPayout => ({
  reference: k.reference,
  day,
  token: k.token,
  description: withToken(k.token, "Payout seller"),
  amountMinor: k.amountMinor ?? 0,
  currency: k.currency,
  status: "completed",
  feeMinor: MinorUnits.make(50),
  createdAt: null,
  firstSeenAt: k.answeredAt + MIN
})

const evidence = (over: Partial<Evidence> = {}): Evidence => ({
  now: NOW,
  completeDays: new Set(serviceDaysNeeded(row, NOW, scaled)),
  byToken: new Map(),
  known: WITNESSES,
  listed: new Map(WITNESSES.map((k) => [k.reference, listed(k)])),
  graceMs: 30 * MIN,
  deadlineMs: 2 * 60 * MIN,
  skewMs: 0,
  clock: scaled,
  resendUnknown: "after",
  ...over
})

describe("resend rules with a declared clock", () => {
  it("needs the service's days, from the intent's (and the day before) to the latest now can be", () => {
    const days = serviceDaysNeeded(row, NOW, scaled) ?? []
    expect(days).toEqual(daysBetween(scaled.latest(INTENT) - DAY_MS, scaled.latest(NOW) + MAX_SKEW_MS))
    // 42 real minutes at 600x are more than 17 sandbox days: none of them is ours.
    expect(days.length).toBeGreaterThan(17)
  })

  it("resends after proof, as against the real service", () => {
    expect(decide(row, evidence())._tag).toBe("Resend")
  })

  it("waits when a service day the row needs was not read completely", () => {
    const needed = serviceDaysNeeded(row, NOW, scaled) ?? []
    const decision = decide(row, evidence({ completeDays: new Set(needed.slice(1)) }))
    expect(decision._tag).toBe("Wait")
  })

  it("waits when the clock does not place our own payouts on the days the listing shows them", () => {
    const moved = new Map(WITNESSES.map((k) => [k.reference, listed(k, dayOf(scaled.latest(k.answeredAt) + 3 * DAY_MS))]))
    const decision = decide(row, evidence({ listed: moved }))
    expect(worded(decision)).toMatchObject({ _tag: "Wait", reason: expect.stringContaining("declared clock does not place") })
  })

  it("waits when the clock was declared only after the intent", () => {
    const late: ServiceTimes = { ...scaled, earliest: (ms) => (ms < INTENT + 1 ? undefined : scaled.latest(ms)) }
    const decision = decide(row, evidence({ clock: late }))
    expect(worded(decision)).toMatchObject({ _tag: "Wait", reason: expect.stringContaining("cannot be told") })
  })

  it("waits when the Date contradicts the declaration (rule 7)", () => {
    const decision = decide(row, evidence({ skewMs: 3_600_000 }))
    expect(worded(decision)).toMatchObject({ _tag: "Wait", reason: expect.stringContaining("clock differs") })
  })

  it("without the clock, the same evidence never resends: our days are not the service's", () => {
    const { clock: _, ...withoutClock } = evidence({ skewMs: scaled.latest(NOW) - NOW })
    expect(decide(row, withoutClock)._tag).toBe("Wait")
  })
})
