/**
 * `payouts retry BATCH --fix FILE` below the CLI (issue 31, item 5), on a real SQLite store and the
 * real intake: the batch's own `<name>.unpaid.csv` is taken as it is, corrected in its phone cells,
 * rows without ids matched by what a fix may not change; each child row is linked to the row it pays
 * again; two lines fixing one row, and a file changing an amount, are refused with their lines.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Option, Stream } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { intake } from "../../src/intake/Intake.ts"
import { makeUnpaidColumns, writeUnpaidCsv } from "../../src/output/UnpaidCsv.ts"
import { makeFixBatch } from "../../src/run/RetryFix.ts"
import { ACCOUNT } from "../store/fixtures.ts"
import { scopedTempDir } from "../kit/TempDir.ts"
import { scopedServices } from "./parts.ts"
import { ordinaryPhone } from "./support.ts"

describe("retry --fix: the child batch", () => {
  it.scoped("takes the batch's unpaid.csv as it is, corrected; links each row; refuses a row fixed twice and a changed amount", () =>
    Effect.gen(function* () {
      const { services, store } = yield* scopedServices
      const dir = yield* scopedTempDir()
      const intakeOf = (file: string) =>
        intake({ accountId: ACCOUNT, file, skipInvalid: false, allowRepeats: false, repeatWindow: Duration.hours(24) }).pipe(Effect.provide(services))
      const parentFile = join(dir, "week.csv")
      writeFileSync(
        parentFile,
        [
          "id,amount,currency,operator,phone,name,email,description,meta.shop",
          `F-1,1000,XAF,carrier1_cm,${ordinaryPhone(1)},Ama One,e1@example.com,,a`,
          `F-2,2000,XAF,carrier1_cm,${ordinaryPhone(2)},Paid Two,e2@example.com,,b`,
          `,700,XAF,carrier1_cm,${ordinaryPhone(3)},No Id,e3@example.com,,c`,
          `,700,XAF,carrier1_cm,${ordinaryPhone(4)},No Id Bis,e4@example.com,,d`
        ].join("\n") + "\n"
      )
      const loaded = yield* intakeOf(parentFile)
      if (loaded._tag !== "Loaded") return yield* Effect.die(new Error(`parent refused: ${JSON.stringify(loaded)}`))
      const parentId = loaded.batch.batchId
      const batch = store.batch(ACCOUNT, parentId)
      for (const [idx, to] of [[0, "failed"], [1, "completed"], [2, "failed"], [3, "cancelled"]] as const) {
        yield* batch.recordTransition({ idx, to, source: "poll" })
      }
      const parent = Option.getOrThrow(yield* batch.getBatch())
      const fixIn = (file: string) => makeFixBatch(ACCOUNT, parent, file, join(dir, "out"), { mode: "run" }).pipe(Effect.provide(services))
      const refusal = (file: string) =>
        Effect.flip(fixIn(file)).pipe(Effect.map((e) => (e._tag === "RetryRefused" ? (e.errors ?? []).map((r) => `${r.line} ${r.column}: ${r.reason}`) : [String(e)])))

      // The batch's unpaid rows, written as the report writes them, phones corrected in place.
      const columns = makeUnpaidColumns()
      yield* Stream.runForEach(batch.streamRows(), (row) => Effect.sync(() => columns.add(row)))
      const unpaid = join(dir, "week.unpaid.csv")
      expect(yield* writeUnpaidCsv(unpaid, ACCOUNT, parentId, columns).pipe(Effect.provide(services))).toBe(true)
      const corrected = readFileSync(unpaid, "utf8")
        .replace(`F-1,1000,XAF,carrier1_cm,${ordinaryPhone(1)},Ama One`, `F-1,1000,XAF,carrier2_cm,${ordinaryPhone(11)},Ama One-Tabi`)
        .replace(ordinaryPhone(3), ordinaryPhone(13))
      writeFileSync(unpaid, corrected)
      expect(corrected.trim().split("\n")).toHaveLength(4)

      const made = yield* fixIn(unpaid)
      expect([made.rows, made.generation, made.fixes, made.placed]).toEqual([3, 1, true, true])
      const child = yield* intakeOf(made.file)
      if (child._tag !== "Loaded") return yield* Effect.die(new Error(`child refused: ${JSON.stringify(child)}`))
      expect(child.batch.batchId).toBe(made.child)
      const rows = Chunk.toReadonlyArray(yield* Stream.runCollect(store.batch(ACCOUNT, made.child).streamRows()))
      expect(rows.map((r) => [r.rowId, r.operator, r.phone, r.name, r.amountMinor, r.details.shop, r.details.retry_of])).toEqual([
        ["F-1", "carrier2_cm", ordinaryPhone(11), "Ama One-Tabi", 1000, "a", parentId],
        [null, "carrier1_cm", ordinaryPhone(13), "No Id", 700, "c", parentId],
        [null, "carrier1_cm", ordinaryPhone(4), "No Id Bis", 700, "d", parentId]
      ])
      // Tokens of the next generation: never those of the payouts that failed.
      const parentTokens = new Set(Chunk.toReadonlyArray(yield* Stream.runCollect(batch.streamRows())).map((r) => r.token))
      for (const r of rows) expect(parentTokens.has(r.token)).toBe(false)
      const links = yield* store.account(ACCOUNT).rowRetries(made.child)
      expect(links.map((l) => [l.childIdx, l.childLine, l.parentBatchId, l.parentLine])).toEqual([
        [0, 2, parentId, 2],
        [1, 3, parentId, 4],
        [2, 4, parentId, 5]
      ])
      // The same file again: the same child, nothing new.
      expect((yield* fixIn(unpaid)).child).toBe(made.child)
      expect(yield* store.account(ACCOUNT).rowRetries(parentId)).toHaveLength(3)

      const header = "id,amount,currency,operator,phone,name,email,description"
      const twice = join(dir, "twice.csv")
      writeFileSync(twice, [header, `F-1,1000,XAF,carrier1_cm,${ordinaryPhone(21)},Ama One,e1@example.com,`, `f-1,1000,XAF,carrier1_cm,${ordinaryPhone(22)},Ama One,e1@example.com,`].join("\n") + "\n")
      const twiceErrors = yield* refusal(twice)
      expect(twiceErrors.join("\n")).toMatch(/^3 id: /m)
      const amount = join(dir, "amount.csv")
      writeFileSync(amount, [header, `F-1,1500,XAF,carrier1_cm,${ordinaryPhone(21)},Ama One,e1@example.com,`].join("\n") + "\n")
      expect(yield* refusal(amount)).toEqual([`2 amount: amount differs from row 2 of batch ${parentId} (1000 XAF): a fix may change phone, operator and name only; pay a different amount in a new file`])
      const noMatch = join(dir, "nomatch.csv")
      writeFileSync(noMatch, [header, `,700,XAF,carrier1_cm,${ordinaryPhone(23)},No Id,other@example.com,Payout week.csv line 4`].join("\n") + "\n")
      expect((yield* refusal(noMatch))[0]).toContain("2 id: no row of batch")
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
