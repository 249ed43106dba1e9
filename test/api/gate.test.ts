import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Option, TestClock } from "effect"
import { makeRequestGate, RequestGate } from "../../src/api/RequestGate.ts"
import type { SharedGate } from "../../src/api/GateTunings.ts"

/**
 * An account register as the PostgreSQL store keeps it: one holder at a time (the advisory lock), the
 * store's clock read once the lock is held.
 */
const lockedRegister = Effect.gen(function*() {
  const lock = yield* Effect.makeSemaphore(1)
  let value = Option.none<string>()
  const gate: SharedGate = {
    modify: (change) =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          const [answer, next] = change(value, yield* Clock.currentTimeMillis)
          value = next
          return answer
        })
      )
  }
  return gate
})

/** Times (ms since start) at which each of `n` concurrent takers got its slot. */
const slotTimes = (gate: Effect.Effect.Success<ReturnType<typeof makeRequestGate>>, n: number) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forEach(
      Array.from({ length: n }),
      () => Effect.zipRight(gate.take, Effect.map(Clock.currentTimeMillis, (t) => t - start)),
      { concurrency: "unbounded" }
    ).pipe(Effect.fork)
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

describe("RequestGate", () => {
  it.effect("spaces requests at the configured rate", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 4 })
      const times = yield* slotTimes(gate, 8)
      expect([...times].sort((a, b) => a - b)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750])
    }))

  it.effect("is unlimited until told otherwise", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate()
      const times = yield* slotTimes(gate, 20)
      expect(times.every((t) => t === 0)).toBe(true)
      expect(yield* gate.currentRate).toBe(Number.POSITIVE_INFINITY)
    }))

  it.effect("halves the rate on a 429 and pauses everyone until Retry-After", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 10 })
      yield* gate.take
      yield* gate.onRateLimited(3000)
      expect(yield* gate.currentRate).toBe(5)
      const times = yield* slotTimes(gate, 3)
      expect([...times].sort((a, b) => a - b)).toEqual([3000, 3200, 3400])
    }))

  it.effect("cuts once for a burst of 429s from calls already in flight", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 16 })
      for (let i = 0; i < 8; i++) yield* gate.onRateLimited(500)
      expect(yield* gate.currentRate).toBe(8)
      yield* TestClock.adjust("2 seconds")
      yield* gate.onRateLimited(500)
      expect(yield* gate.currentRate).toBe(4)
    }))

  it.effect("pauses by default when the 429 carries no Retry-After, and never goes below minRate", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 2, minRate: 1.5, defaultPauseMs: 700 })
      yield* gate.onRateLimited()
      expect(yield* gate.currentRate).toBe(1.5)
      const times = yield* slotTimes(gate, 1)
      expect(times).toEqual([700])
    }))

  it.effect("a pause that starts while a taker waits holds it too", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 1 })
      yield* gate.take
      const start = yield* Clock.currentTimeMillis
      const fiber = yield* Effect.fork(Effect.zipRight(gate.take, Clock.currentTimeMillis))
      yield* TestClock.adjust("500 millis")
      yield* gate.onRateLimited(5000)
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(fiber)) - start).toBe(5500)
    }))

  it.effect("creeps back up toward the ceiling while calls succeed", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 20, recoveryPerSecond: 2 })
      yield* gate.onRateLimited(0)
      expect(yield* gate.currentRate).toBe(10)
      // one second of successes at full speed regains about recoveryPerSecond
      for (let i = 0; i < 10; i++) yield* gate.onSuccess
      const after = yield* gate.currentRate
      expect(after).toBeGreaterThan(11.5)
      expect(after).toBeLessThan(12.1)
      for (let i = 0; i < 1000; i++) yield* gate.onSuccess
      expect(yield* gate.currentRate).toBe(20)
    }))

  it.effect("adapts from unlimited: the first 429 sets half the observed rate", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ minRate: 1 })
      for (let i = 0; i < 30; i++) yield* gate.take
      yield* gate.onRateLimited(1000)
      expect(yield* gate.currentRate).toBe(15)
      const times = yield* slotTimes(gate, 3)
      expect(times.map((t) => Math.round(t))).toEqual([1000, 1067, 1133])
      for (let i = 0; i < 500; i++) yield* gate.onSuccess
      expect(yield* gate.currentRate).toBeGreaterThan(15)
    }))

  it.effect("is provided as a service", () =>
    Effect.gen(function*() {
      const gate = yield* RequestGate
      expect(yield* gate.currentRate).toBe(3)
    }).pipe(Effect.provide(RequestGate.layer({ ratePerSecond: 3 }))))

  it.live("callers that slept through their slots (a stopped or starved process) take new ones instead of going at once", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 10 })
      yield* gate.take
      // Three callers wait for the slots 100, 200 and 300 ms from now ...
      const fiber = yield* Effect.forEach([1, 2, 3], () => Effect.zipRight(gate.take, Clock.currentTimeMillis), { concurrency: "unbounded" }).pipe(Effect.fork)
      yield* Effect.sleep("30 millis")
      // ... and the process cannot run for 700 ms (as under SIGSTOP): every slot passes unused.
      const end = yield* Effect.sync(() => {
        const until = Date.now() + 700
        while (Date.now() < until) { /* the event loop is held */ }
        return Date.now()
      })
      const times = yield* Fiber.join(fiber)
      // Going at once would put three requests in one instant; new slots keep them an interval apart.
      expect(Math.max(...times) - end).toBeGreaterThanOrEqual(190)
    }))
  it.effect("a reservation that waited for the register's lock does not move a worker's slots among another's", () =>
    Effect.gen(function*() {
      // Worker b's reservations after its first wait 300 ms for the lock (others hold it) before the
      // store's clock is read: that reading is 300 ms late against the midpoint of b's round trip.
      const register = yield* lockedRegister
      let draws = 0
      const waited: SharedGate = {
        modify: (change) => Effect.zipRight(Effect.sleep(draws++ > 0 ? "300 millis" : "0 millis"), register.modify(change))
      }
      const a = yield* makeRequestGate({ ratePerSecond: 20 })
      const b = yield* makeRequestGate({ ratePerSecond: 20 })
      yield* a.share(register)
      yield* b.share(waited)
      const taker = (gate: typeof a) => Effect.zipRight(gate.take, Clock.currentTimeMillis)
      const fiber = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b)),
        (gate) => taker(gate),
        { concurrency: "unbounded" }
      ).pipe(Effect.fork)
      yield* TestClock.adjust("10 seconds")
      // 60 requests at 20/s in 10 s: with its slots misplaced, b drops them as already past and starves.
      expect(Option.isSome(yield* fiber.poll)).toBe(true)
      const times = [...(yield* Fiber.join(fiber))].sort((x, y) => x - y)
      // The account's limit holds in every second as the service counts: never 21 in one second.
      for (let i = 20; i < times.length; i++) expect(times[i] - times[i - 20]).toBeGreaterThanOrEqual(1_000)
    }))
  it.effect("a check before sending that ends late for the slot takes a new slot and is asked again", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 10 })
      yield* gate.take
      // The lease, halt and guards read the store for 120 ms the first time (a loaded database).
      let asked = 0
      const check = Effect.suspend(() => Effect.as(Effect.sleep(asked++ === 0 ? "120 millis" : "0 millis"), true))
      const start = yield* Clock.currentTimeMillis
      const fiber = yield* Effect.fork(Effect.zip(gate.takeChecked(check), Clock.currentTimeMillis))
      yield* TestClock.adjust("1 second")
      const [sent, at] = yield* Fiber.join(fiber)
      expect(sent).toBe(true)
      expect(asked).toBe(2)
      // Not sent 120 ms into its slot at 100 ms (it would crowd the next one) but on a slot of its own,
      // taken at 220 ms: the slot at 100 ms went unused, so one interval after it is free.
      expect(at - start).toBe(220)
      // A check that says no is not asked again, and nothing is sent.
      expect(yield* gate.takeChecked(Effect.succeed(false))).toBe(false)
    }))

  it.effect("a slot the check declines goes to the next caller instead of passing unused", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 10 })
      yield* gate.take
      const start = yield* Clock.currentTimeMillis
      // A row its operator's probe window holds back, then the status lookup that would open it.
      const held = yield* Effect.fork(gate.takeChecked(Effect.succeed(false)))
      yield* Effect.yieldNow()
      const lookup = yield* Effect.fork(Effect.zipRight(gate.take, Clock.currentTimeMillis))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(held)).toBe(false)
      // The lookup goes on the slot the row did not use (100 ms), not one interval behind it.
      expect((yield* Fiber.join(lookup)) - start).toBe(100)
    }))
  it.effect("a caller after an idle moment starts the schedule again: no burst of slots already past", () =>
    Effect.gen(function*() {
      const gate = yield* makeRequestGate({ ratePerSecond: 10 })
      yield* gate.take
      // The slot at 100 ms passes with no caller: at 130 ms one goes at once, the next an interval later.
      yield* TestClock.adjust("130 millis")
      const times = yield* slotTimes(gate, 2)
      expect([...times].sort((a, b) => a - b)).toEqual([0, 100])
    }))
})
