import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Effect, Fiber, Layer, Redacted, TestClock, TestServices } from "effect"
import { makeRequestGate, RequestGate } from "../../src/api/RequestGate.ts"
import { rememberAccount, shareKnownAccountBudget, sharedGateOf } from "../../src/cli/SharedBudget.ts"
import { AccountId } from "../../src/domain/Ids.ts"
import * as PostgresStateStore from "../../src/store/PostgresStateStore.ts"
import { Registers } from "../../src/store/Sql/Registers.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { ACCOUNT, tempDbPath } from "../store/fixtures.ts"
import { DATABASE_URL, freshSchema, POSTGRES_ADAPTERS } from "../store/postgres.ts"

/** A store's services on a fresh location, closed with the test's scope: opened as fixtures.ts opens its adapters. */
const SQLITE = { name: "SQLite", open: Effect.flatMap(tempDbPath, (filename) => Layer.build(SqliteStateStore.layer({ filename, busyTimeout: "20 millis" }))) }
const POSTGRES = {
  name: "PostgreSQL",
  open: Effect.flatMap(freshSchema, (schema) => Layer.build(PostgresStateStore.layer({ url: DATABASE_URL, schema, maxConnections: 5, clock: "effect" })))
}
const STORES = [SQLITE, ...(POSTGRES_ADAPTERS.length > 0 ? [POSTGRES] : [])]

/**
 * Moves the test clock in small steps, letting the store's real I/O finish between steps, until `done`.
 * The test clock runs slower than real time: a reservation's round trip on a loaded machine (tens of
 * real milliseconds) then spans fewer test milliseconds than a slot's staleness (50), as in real life.
 */
const driveUntil = (done: Effect.Effect<boolean>, testMsPerStep = 1) =>
  Effect.gen(function* () {
    for (let step = 0; step < 10_000 && !(yield* done); step++) {
      yield* TestServices.provideLive(Effect.sleep("2 millis"))
      yield* TestClock.adjust(`${testMsPerStep} millis`)
    }
  })

const takers = (gate: Effect.Effect.Success<ReturnType<typeof makeRequestGate>>, n: number) =>
  Effect.forEach(Array.from({ length: n }), () => Effect.zipRight(gate.take, Clock.currentTimeMillis), { concurrency: "unbounded" })

describe("the account's shared request budget", () => {
  it.scoped("two workers on one store together stay under --rate: their requests are spaced as one worker's", () =>
    Effect.gen(function* () {
      const register = sharedGateOf(Context.get(yield* SQLITE.open, Registers), ACCOUNT)
      const a = yield* makeRequestGate({ ratePerSecond: 20 })
      const b = yield* makeRequestGate({ ratePerSecond: 20 })
      yield* a.share(register)
      yield* b.share(register)
      const start = yield* Clock.currentTimeMillis
      const fa = yield* Effect.fork(takers(a, 15))
      const fb = yield* Effect.fork(takers(b, 15))
      yield* driveUntil(Effect.map(Effect.all([fa.poll, fb.poll]), ([x, y]) => x._tag === "Some" && y._tag === "Some"))
      const times = [...(yield* Fiber.join(fa)), ...(yield* Fiber.join(fb))].map((t) => t - start).sort((x, y) => x - y)
      expect(times).toHaveLength(30)
      // 30 requests at 20/s: the last leaves no sooner than 29 intervals after the first.
      expect(times[29] - times[0]).toBeGreaterThanOrEqual(29 * 50)
      // Each worker alone would have sent its 15 in 700 ms: the budget was shared, not doubled.
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(45)
    })
  )

  it.scoped("a 429 seen by one worker pauses the other until Retry-After", () =>
    Effect.gen(function* () {
      const register = sharedGateOf(Context.get(yield* SQLITE.open, Registers), ACCOUNT)
      const a = yield* makeRequestGate({ ratePerSecond: 10 })
      const b = yield* makeRequestGate({ ratePerSecond: 10 })
      yield* a.share(register)
      yield* b.share(register)
      const start = yield* Clock.currentTimeMillis
      yield* a.onRateLimited(3_000)
      const fb = yield* Effect.fork(Effect.zipRight(b.take, Clock.currentTimeMillis))
      // Seconds of test time to a single request: larger steps (no slot goes stale in them).
      yield* driveUntil(Effect.map(fb.poll, (x) => x._tag === "Some"), 10)
      expect((yield* Fiber.join(fb)) - start).toBeGreaterThanOrEqual(3_000)
      // The cut is the account's: the other worker's rate is halved too.
      expect(yield* b.currentRate).toBe(5)
    })
  )

  it.scoped.each(STORES.map((s) => [s.name, s] as const))("a starting worker's account lookup is inside the budget of the account its key led to before (%s)", ([, store]) =>
    Effect.gen(function* () {
      const context = yield* store.open
      const registers = Context.get(context, Registers)
      const connection = { baseUrl: "http://127.0.0.1:9/v1", apiKey: Redacted.make("the-key") }
      const running = yield* makeRequestGate({ ratePerSecond: 20 })
      yield* running.share(sharedGateOf(registers, ACCOUNT))
      const starting = yield* makeRequestGate({ ratePerSecond: 20 })
      const withStore = <A, E>(effect: Effect.Effect<A, E, Registers | RequestGate>) =>
        effect.pipe(Effect.provide(context), Effect.provideService(RequestGate, RequestGate.make(starting)))
      // Never looked up with this key: nothing to share yet (the first lookup ever goes alone).
      yield* withStore(shareKnownAccountBudget(connection))
      expect((yield* registers.registers(ACCOUNT, "account-of/")).registers).toEqual([])
      yield* withStore(rememberAccount(connection, ACCOUNT))
      yield* withStore(shareKnownAccountBudget(connection))
      const start = yield* Clock.currentTimeMillis
      const fa = yield* Effect.fork(takers(running, 10))
      const fb = yield* Effect.fork(takers(starting, 10))
      yield* driveUntil(Effect.map(Effect.all([fa.poll, fb.poll]), ([x, y]) => x._tag === "Some" && y._tag === "Some"))
      const times = [...(yield* Fiber.join(fa)), ...(yield* Fiber.join(fb))].map((t) => t - start).sort((x, y) => x - y)
      // One budget: 20 requests of the two gates together are spaced as one gate's (19 intervals of 50 ms).
      expect(times[19] - times[0]).toBeGreaterThanOrEqual(19 * 50)
      // The key itself is never stored: the register is named by a hash.
      const hints = yield* registers.registers(AccountId.make("(account hints)"), "")
      expect(hints.registers.map((r) => r.value)).toEqual([ACCOUNT])
      expect(JSON.stringify(hints)).not.toContain("the-key")
    })
  )
})
