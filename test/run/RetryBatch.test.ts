/**
 * The child batch of `payouts retry` (issue 16, item 5) over a real SQLite store: only rows proven
 * unpaid (failed, cancelled, expired, no alarm) go in; a batch with rows still in flight is refused;
 * one child per parent; a retry of the retry is generation 2, and its intake mints tokens of its own.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, type Context, Duration, Effect, Option, Stream } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BatchId } from "../../src/domain/Ids.ts"
import { retryRefusalText } from "../../src/cli/RetryText.ts"
import { intake } from "../../src/intake/Intake.ts"
import { retryLineage } from "../../src/intake/RetryLineage.ts"
import { makeRetryBatch, RetryRefused } from "../../src/run/RetryBatch.ts"
import type { RowState } from "../../src/store/RowState.ts"
import type { Batch } from "../../src/store/Model.ts"
import type { StoreServices } from "../../src/store/Sql/Store.ts"
import { ordinaryPhone } from "./support.ts"
import { ACCOUNT, newBatch, rowInputs } from "../store/fixtures.ts"
import { scopedServices } from "./parts.ts"
import { scopedTempDir } from "../kit/TempDir.ts"

const PARENT = BatchId.make("parent0000000001")

/** Rows moved to these states (through the states a run goes through); row 2 is also alarmed, the last resent. */
const ENDS: ReadonlyArray<ReadonlyArray<RowState>> = [
  ["completed"],
  ["failed"],
  ["failed"],
  ["cancelled"],
  ["expired"],
  ["submitting", "unknown"],
  ["submitting", "unknown", "abandoned"],
  ["completed", "refunded"],
  ["skipped"],
  ["submitting", "unknown"]
]

const RESENT = ENDS.length - 1

/** What a refusal says (a store or file error would fail the test with its own text). */
const reasonOf = (e: { readonly _tag: string }) => (e instanceof RetryRefused ? retryRefusalText(e.refusal) : String(e))

/** A retry of `parent` written in `dir`, against this store's services. */
const retryIn = (services: Context.Context<StoreServices>, parent: Batch, dir: string) =>
  makeRetryBatch(ACCOUNT, parent, dir, { mode: "run" }).pipe(Effect.provide(services))

const setUp = Effect.gen(function* () {
  const { services, store } = yield* scopedServices
  yield* store.createBatch(newBatch(PARENT), rowInputs(ENDS.length))
  const batch = store.batch(ACCOUNT, PARENT)
  for (const [idx, path] of ENDS.entries()) {
    for (const to of path) expect(yield* batch.recordTransition({ idx, to, source: "poll" })).toBe(true)
  }
  yield* batch.setRowAlarm(2, "two payouts carry its token", ["TXN-A", "TXN-B"])
  // Resent once automatically after an unknown outcome, and that resend failed.
  expect(yield* batch.claimForResend([RESENT], "listing proves it absent")).toHaveLength(1)
  expect(yield* batch.recordTransition({ idx: RESENT, to: "failed", source: "poll" })).toBe(true)
  return { services, store, parent: Option.getOrThrow(yield* batch.getBatch()) }
})

describe("the child batch of payouts retry", () => {
  it.scoped("holds the failed, cancelled and expired rows without alarm, and nothing else", () =>
    Effect.gen(function* () {
      const { parent, services, store } = yield* setUp
      const dir = yield* scopedTempDir()
      const made = yield* retryIn(services, parent, dir)
      expect([made.generation, made.rows, made.placed, Option.isNone(made.existing)]).toEqual([1, 3, true, true])
      expect(made.leftOut).toEqual({ inDoubt: 2, alarmed: 1, resent: 1 })
      expect(made.file).toBe(join(dir, `${PARENT}.retry1.csv`))
      const [header, ...lines] = readFileSync(made.file, "utf8").trim().split("\n")
      expect(header).toBe("id,amount,currency,operator,phone,name,email,description,meta.shop,meta.retry_of")
      expect(lines.map((l) => l.split(",")[0])).toEqual(["id-1", "id-3", "id-4"])
      expect(lines[0]).toBe(`id-1,5000,XAF,MTN_MOMO_CMR,+237670000001,Seller 1,seller1@example.com,Payout id-1,shop-1,${PARENT}`)

      // Again: the same child (the file is the same bytes), never a second one.
      const again = yield* retryIn(services, parent, dir)
      expect(again.child).toBe(made.child)
      expect(yield* store.account(ACCOUNT).retryLinks()).toHaveLength(1)

      // Once its run began: a run resumes it from the same file; a job folder gets no second copy;
      // once it ran to its end, nothing is put in place to run again.
      yield* store.createBatch(newBatch(made.child), rowInputs(3))
      const begun = yield* retryIn(services, parent, dir)
      expect([begun.existing, begun.placed]).toEqual([Option.some("open"), true])
      const toJobs = yield* makeRetryBatch(ACCOUNT, parent, dir, { mode: "jobs" }).pipe(Effect.provide(services))
      expect(toJobs.placed).toBe(false)
      yield* store.batch(ACCOUNT, made.child).setBatchState("done")
      const ended = yield* retryIn(services, parent, dir)
      expect([ended.existing, ended.placed, ended.child]).toEqual([Option.some("done"), false, made.child])
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("is refused while a row of the parent may still fail, and when nothing is left to retry", () =>
    Effect.gen(function* () {
      const { services, store } = yield* scopedServices
      const busy = BatchId.make("busy000000000001")
      yield* store.createBatch(newBatch(busy), rowInputs(2))
      yield* store.batch(ACCOUNT, busy).recordTransition({ idx: 0, to: "failed", source: "poll" })
      yield* store.batch(ACCOUNT, busy).recordTransition({ idx: 1, to: "pending", source: "poll" })
      const dir = yield* scopedTempDir()
      const batch = Option.getOrThrow(yield* store.batch(ACCOUNT, busy).getBatch())
      const refused = yield* Effect.flip(retryIn(services, batch, dir))
      expect(reasonOf(refused)).toContain("still has 1 row(s) not final")

      yield* store.batch(ACCOUNT, busy).recordTransition({ idx: 1, to: "completed", source: "poll" })
      const clean = BatchId.make("clean00000000001")
      yield* store.createBatch(newBatch(clean), rowInputs(1))
      yield* store.batch(ACCOUNT, clean).recordTransition({ idx: 0, to: "submitting", source: "claim" })
      yield* store.batch(ACCOUNT, clean).recordTransition({ idx: 0, to: "unknown", source: "response" })
      const nothing = yield* Effect.flip(retryIn(services, Option.getOrThrow(yield* store.batch(ACCOUNT, clean).getBatch()), dir))
      expect(reasonOf(nothing)).toContain("no failed, cancelled or expired row to pay again (left to a person, never retried: 1 unknown or abandoned)")
      expect(yield* store.account(ACCOUNT).retryLinks()).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("a retry of the retry is generation 2 and descends from both", () =>
    Effect.gen(function* () {
      const { parent, services, store } = yield* setUp
      const dir = yield* scopedTempDir()
      const first = yield* retryIn(services, parent, dir)
      // The child as its run leaves it: loaded, every row failed again.
      yield* store.createBatch(newBatch(first.child), rowInputs(3))
      for (const idx of [0, 1, 2]) yield* store.batch(ACCOUNT, first.child).recordTransition({ idx, to: "failed", source: "poll" })
      const child = Option.getOrThrow(yield* store.batch(ACCOUNT, first.child).getBatch())
      const second = yield* retryIn(services, child, dir)
      expect(second.generation).toBe(2)
      const lineage = yield* retryLineage(ACCOUNT, second.child).pipe(Effect.provide(services))
      expect([lineage.parent, lineage.generation, [...lineage.ancestors].sort()]).toEqual([first.child, 2, [first.child, PARENT].sort()])
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("its file reads back, through the real intake, as exactly the parent's failed rows, with tokens of their own", () =>
    Effect.gen(function* () {
      const { services, store } = yield* scopedServices
      const dir = yield* scopedTempDir()
      const intakeOf = (file: string) =>
        intake({ accountId: ACCOUNT, file, skipInvalid: false, allowRepeats: false, repeatWindow: Duration.hours(24) }).pipe(Effect.provide(services))
      const rowsOf = (batchId: BatchId) => Stream.runCollect(store.batch(ACCOUNT, batchId).streamRows()).pipe(Effect.map(Chunk.toReadonlyArray))
      const parentFile = join(dir, "awkward.csv")
      writeFileSync(
        parentFile,
        [
          "id,amount,currency,operator,phone,name,email,description,meta.shop;branch,meta.note",
          `K-1,1250,XAF,carrier1_cm,${ordinaryPhone(1)},"Ngo, ""Mama"" Éloïse",e1@example.com,"Payout; week 12",a,"=1+1"`,
          `K-2,99,XAF,carrier1_cm,${ordinaryPhone(2)},Paid Already,e2@example.com,,b,`,
          `,700,XAF,carrier1_cm,${ordinaryPhone(3)},No Id,e3@example.com,"two
lines",,x`
        ].join("\n") + "\n"
      )
      const parentLoad = yield* intakeOf(parentFile)
      if (parentLoad._tag !== "Loaded") return yield* Effect.die(new Error(`parent refused: ${JSON.stringify(parentLoad)}`))
      const parentId = parentLoad.batch.batchId
      for (const [idx, to] of [[0, "failed"], [1, "completed"], [2, "cancelled"]] as const) {
        yield* store.batch(ACCOUNT, parentId).recordTransition({ idx, to, source: "poll" })
      }
      const made = yield* retryIn(services, Option.getOrThrow(yield* store.batch(ACCOUNT, parentId).getBatch()), dir)
      const childLoad = yield* intakeOf(made.file)
      if (childLoad._tag !== "Loaded") return yield* Effect.die(new Error(`child refused: ${JSON.stringify(childLoad)}`))
      expect(childLoad.batch.batchId).toBe(made.child)

      const parentRows = yield* rowsOf(parentId)
      const childRows = yield* rowsOf(made.child)
      const paid = (r: (typeof parentRows)[number]) => [r.rowId, r.amountMinor, r.currency, r.operator, r.phone, r.name, r.email, r.description]
      expect(childRows.map(paid)).toEqual([parentRows[0], parentRows[2]].map(paid))
      expect(childRows.map((r) => r.details)).toEqual([parentRows[0], parentRows[2]].map((r) => ({ ...r.details, retry_of: parentId })))
      expect(childRows.every((r) => r.state === "validated")).toBe(true)
      const parentTokens = new Set(parentRows.map((r) => r.token))
      for (const r of childRows) expect(parentTokens.has(r.token)).toBe(false)

      // Any other file reusing the failed id is refused, the same rows in another order included.
      const [header, ...body] = readFileSync(made.file, "utf8").trimEnd().split("\n")
      const reordered = join(dir, "reordered.csv")
      writeFileSync(reordered, [header, body.slice(1).join("\n"), body[0]].join("\n") + "\n")
      const refused = yield* intakeOf(reordered)
      expect(refused._tag).toBe("Refused")
      if (refused._tag === "Refused") expect(refused.errors.map((e) => e.reason).join("; ")).toContain('id "K-1" was already used')
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
