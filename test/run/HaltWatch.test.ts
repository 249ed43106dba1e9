import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Option, TestClock } from "effect"
import { makeHaltWatch } from "../../src/run/HaltWatch.ts"
import { StoreError } from "../../src/store/Model.ts"
import { AccountRecords } from "../../src/store/Sql/Account.ts"
import { ACCOUNT } from "../store/fixtures.ts"
import { scopedServices } from "./parts.ts"

/** The account's records, counting how often the halt is read. */
const counting = (records: AccountRecords, reads: { n: number }) =>
  AccountRecords.make({ ...records, activeHalt: (id) => Effect.zipRight(Effect.sync(() => reads.n++), records.activeHalt(id)) })

describe("the halt watch", () => {
  it.scoped("reads the store at most once a second, once for callers that come together, and sees a new halt after that", () =>
    Effect.gen(function* () {
      const { services, store } = yield* scopedServices
      const reads = { n: 0 }
      const halt = yield* makeHaltWatch(ACCOUNT, 1_000).pipe(Effect.provideService(AccountRecords, counting(Context.get(services, AccountRecords), reads)))

      const first = yield* Effect.all(Array.from({ length: 20 }, () => halt), { concurrency: "unbounded" })
      expect(first.every(Option.isNone)).toBe(true)
      expect(reads.n).toBe(1)

      expect(yield* store.account(ACCOUNT).haltAccount({ at: 1, by: "ana", reason: "wrong file" })).toBe(true)
      yield* TestClock.adjust("999 millis")
      expect(Option.isNone(yield* halt)).toBe(true)
      expect(reads.n).toBe(1)

      yield* TestClock.adjust("1 millis")
      const second = yield* Effect.all(Array.from({ length: 20 }, () => halt), { concurrency: "unbounded" })
      expect(second.map((h) => Option.map(h, (x) => x.by))).toEqual(Array.from({ length: 20 }, () => Option.some("ana")))
      expect(reads.n).toBe(2)
    }))

  it.scoped("a halt that cannot be read holds the run", () =>
    Effect.gen(function* () {
      const { services } = yield* scopedServices
      const broken = AccountRecords.make({
        ...Context.get(services, AccountRecords),
        activeHalt: () => Effect.fail(new StoreError({ reason: "Unavailable", message: "disk gone" }))
      })
      const halt = yield* makeHaltWatch(ACCOUNT, 1_000).pipe(Effect.provideService(AccountRecords, broken))
      const seen = yield* halt
      expect(Option.map(seen, (h) => h.by)).toEqual(Option.some("payouts"))
      expect(Option.map(seen, (h) => h.reason)).toEqual(Option.some("the state store could not be read (disk gone)"))
    }))
})
