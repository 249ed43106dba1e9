import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { PollQueue } from "../../src/run/PollQueue.ts"

describe("poll queue", () => {
  it("hands out entries in due order, each once, and wakes a webhook-named one", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }), fc.nat(), (dues, pick) => {
        const q = new PollQueue()
        dues.forEach((dueAt, idx) => q.push({ idx, reference: `R${idx}`, amountMinor: 100, currency: "XAF", dueAt, interval: 1, since: 0 }))
        const woken = dues.length > 0 ? pick % dues.length : -1
        if (woken >= 0) expect(q.wake(`R${woken}`, -1)).toBe(true)
        const out = q.takeDue(10_000, 10_000)
        expect(out.length).toBe(dues.length)
        if (woken >= 0) expect(out[0].idx).toBe(woken)
        const rest = out.filter((e) => e.idx !== woken).map((e) => e.dueAt)
        expect(rest).toEqual([...rest].sort((a, b) => a - b))
        expect(q.size).toBe(0)
      })
    )
  })

  it("takes only what is due, up to the limit, and ignores a reference already queued", () => {
    const q = new PollQueue()
    q.push({ idx: 1, reference: "A", amountMinor: 100, currency: "XAF", dueAt: 5, interval: 1, since: 0 })
    q.push({ idx: 1, reference: "A", amountMinor: 100, currency: "XAF", dueAt: 1, interval: 1, since: 0 })
    q.push({ idx: 2, reference: "B", amountMinor: 100, currency: "XAF", dueAt: 50, interval: 1, since: 0 })
    expect(q.takeDue(10, 10).map((e) => e.reference)).toEqual(["A"])
    expect(q.nextDueAt()).toBe(50)
    expect(q.wake("Z", 0)).toBe(false)
  })
})
