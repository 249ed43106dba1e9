import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AccountId, BatchId } from "../../src/domain/Ids.ts"
import { ACCOUNT, ADAPTERS, scopedStoreOn } from "./fixtures.ts"

const P = BatchId.make("parent00000000aa")
const C1 = BatchId.make("child000000000b1")
const C2 = BatchId.make("child000000000b2")

describe.each(ADAPTERS)("retry links ($name)", (adapter) => {
  it.scoped("a parent gets one child: a second retry finds the first link, not a second child", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      const first = yield* account.linkRetry({ parentBatchId: P, childBatchId: C1, generation: 1 })
      expect([first.parentBatchId, first.childBatchId, first.generation]).toEqual([P, C1, 1])
      const again = yield* account.linkRetry({ parentBatchId: P, childBatchId: C1, generation: 1 })
      expect(again.childBatchId).toBe(C1)
      const other = yield* account.linkRetry({ parentBatchId: P, childBatchId: C2, generation: 1 })
      expect(other.childBatchId).toBe(C1)
      expect((yield* account.retryLinks()).map((l) => [l.parentBatchId, l.childBatchId])).toEqual([[P, C1]])
    })
  )

  it.scoped("a child is the retry of one parent only, and links are per account", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      yield* account.linkRetry({ parentBatchId: P, childBatchId: C1, generation: 1 })
      const taken = yield* account.linkRetry({ parentBatchId: BatchId.make("parent00000000bb"), childBatchId: C1, generation: 1 })
      expect(taken.parentBatchId).toBe(P)
      const grandchild = yield* account.linkRetry({ parentBatchId: C1, childBatchId: C2, generation: 2 })
      expect(grandchild.generation).toBe(2)
      expect((yield* account.retryLinks()).map((l) => l.childBatchId)).toEqual([C1, C2])
      expect(yield* store.account(AccountId.make("other")).retryLinks()).toEqual([])
      const elsewhere = yield* store.account(AccountId.make("other")).linkRetry({ parentBatchId: P, childBatchId: C2, generation: 1 })
      expect(elsewhere.childBatchId).toBe(C2)
    })
  )

  it.scoped("retries of one parent at the same moment agree on a single child", () =>
    Effect.gen(function* () {
      const { store } = yield* scopedStoreOn(adapter)
      const account = store.account(ACCOUNT)
      const children = Array.from({ length: 8 }, (_, i) => BatchId.make(`child00000000c${i}`))
      const answers = yield* Effect.all(
        children.map((child) => account.linkRetry({ parentBatchId: P, childBatchId: child, generation: 1 })),
        { concurrency: "unbounded" }
      )
      expect(new Set(answers.map((a) => a.childBatchId)).size).toBe(1)
      expect(yield* account.retryLinks()).toHaveLength(1)
    })
  )
})
