import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AccountId } from "../../src/domain/Ids.ts"
import { ACCOUNT, ADAPTERS, scopedStoreOn } from "./fixtures.ts"

const count = (value: Option.Option<string>, _now: number) => {
  const next = Option.getOrElse(Option.map(value, Number), () => 0) + 1
  return [next, Option.some(String(next))] as const
}

describe.each(ADAPTERS)("account registers ($name)", (adapter) => {
  it.scoped("a register is created, changed and deleted by its change function, per account", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      expect(yield* account.modifyRegister("n", count)).toBe(1)
      expect(yield* account.modifyRegister("n", count)).toBe(2)
      expect(yield* store.account(AccountId.make("other")).modifyRegister("n", count)).toBe(1)
      const read = yield* account.registers("n")
      expect(read.registers.map((r) => [r.name, r.value])).toEqual([["n", "2"]])
      expect(read.nowMs).toBeGreaterThanOrEqual(0)
      expect(yield* account.modifyRegister("n", (v) => [Option.getOrNull(v), Option.none()] as const)).toBe("2")
      expect((yield* account.registers("")).registers).toEqual([])
    })
  )

  it.scoped("a prefix is taken literally: % and _ in it match only themselves", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      for (const name of ["worker:a", "worker:b", "worker_x", "workerZ", "lock:XAF"]) yield* account.modifyRegister(name, count)
      expect((yield* account.registers("worker:")).registers.map((r) => r.name)).toEqual(["worker:a", "worker:b"])
      expect((yield* account.registers("worker_")).registers.map((r) => r.name)).toEqual(["worker_x"])
    })
  )

  it.scoped("changes made at the same moment are applied one after another: none is lost", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      const answers = yield* Effect.all(Array.from({ length: 25 }, () => account.modifyRegister("n", count)), { concurrency: "unbounded" })
      expect([...answers].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    })
  )
})
