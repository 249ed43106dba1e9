import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import * as PollQueue from "../../src/run/PollQueue.ts"

const entry = (idx: number, reference: string, dueAt: number): PollQueue.PollEntry =>
  ({ idx, reference, amountMinor: 100, currency: "XAF", dueAt, interval: 1, since: 0 })

describe("poll queue", () => {
  it("hands out entries in due order, each once, and wakes a webhook-named one", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }), fc.nat(), (dues, pick) => {
        let q = dues.reduce((q, dueAt, idx) => PollQueue.push(q, entry(idx, `R${idx}`, dueAt)), PollQueue.empty)
        expect(PollQueue.size(q)).toBe(dues.length)
        const woken = dues.length > 0 ? pick % dues.length : -1
        if (woken >= 0) {
          const waked = PollQueue.wake(q, `R${woken}`, -1)
          expect(Option.isSome(waked)).toBe(true)
          q = Option.getOrThrow(waked)
          expect(PollQueue.size(q)).toBe(dues.length)
        }
        const [out, rest] = PollQueue.takeDue(q, 10_000, 10_000)
        expect(out.length).toBe(dues.length)
        if (woken >= 0) expect(out[0].idx).toBe(woken)
        const others = out.filter((e) => e.idx !== woken).map((e) => e.dueAt)
        expect(others).toEqual([...others].sort((a, b) => a - b))
        expect(PollQueue.size(rest)).toBe(0)
        expect(dues.some((_, idx) => PollQueue.has(rest, `R${idx}`))).toBe(false)
        // The queue taken from is left as it was.
        expect(PollQueue.size(q)).toBe(dues.length)
      })
    )
  })

  it("takes only what is due, up to the limit, and ignores a reference already queued", () => {
    let q = PollQueue.push(PollQueue.empty, entry(1, "A", 5))
    q = PollQueue.push(q, entry(1, "A", 1))
    q = PollQueue.push(q, entry(2, "B", 50))
    q = PollQueue.push(q, entry(3, "C", 7))
    expect(PollQueue.size(q)).toBe(3)
    const [first, afterFirst] = PollQueue.takeDue(q, 10, 1)
    expect(first.map((e) => e.reference)).toEqual(["A"])
    expect(first[0].dueAt).toBe(5)
    const [second, rest] = PollQueue.takeDue(afterFirst, 10, 10)
    expect(second.map((e) => e.reference)).toEqual(["C"])
    expect(PollQueue.nextDueAt(rest)).toEqual(Option.some(50))
    expect(PollQueue.has(rest, "B")).toBe(true)
    expect(PollQueue.has(rest, "A")).toBe(false)
    expect(PollQueue.wake(rest, "Z", 0)).toEqual(Option.none())
    expect(PollQueue.nextDueAt(PollQueue.takeDue(rest, 50, 10)[1])).toEqual(Option.none())
  })

  it("a woken entry is due now; one already due keeps its place", () => {
    let q = PollQueue.push(PollQueue.empty, entry(1, "A", 5))
    q = PollQueue.push(q, entry(2, "B", 100))
    q = Option.getOrThrow(PollQueue.wake(q, "B", 20))
    expect(PollQueue.takeDue(q, 19, 10)[0].map((e) => e.reference)).toEqual(["A"])
    const [due] = PollQueue.takeDue(Option.getOrThrow(PollQueue.wake(q, "A", 30)), 30, 10)
    expect(due.map((e) => [e.reference, e.dueAt])).toEqual([["A", 5], ["B", 20]])
  })
})
