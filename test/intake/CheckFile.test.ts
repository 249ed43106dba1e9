/**
 * `payouts validate`'s order of checks (DryRun.checkFile with ownFirst): a file with a row invalid on
 * its own is refused on its own errors without asking the store (so without the account lookup
 * either); one that passes them, or --skip-invalid,
 * asks the store once, and gets the other batches' errors too.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { AccountId } from "../../src/domain/Ids.ts"
import { makeCrossBatch } from "../../src/intake/CrossBatch.ts"
import { checkFile } from "../../src/intake/DryRun.ts"
import { NO_GUARDS } from "../../src/intake/Guards.ts"
import { intake } from "../../src/intake/Intake.ts"
import { fileBatchId } from "../../src/intake/FileBatchId.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { tempDir } from "../kit/TempDir.ts"

const ACCOUNT = AccountId.make("acct-check-file")
const HEADER = "id,amount,currency,operator,phone,name,email"
const row = (id: string, i: number, amount = "1000") => `${id},${amount},XAF,carrier1_cm,+23767${String(1_000_000 + i).slice(-7)},Seller ${i},s${i}@example.com`

/** `n` rows; row 2 reuses an id of the earlier batch; `badAt` (if any) has an amount XAF cannot have. */
const fileOf = (n: number, badAt?: number) =>
  [HEADER, ...Array.from({ length: n }, (_, i) => (i === 2 ? row("OLD-1", i) : row(`N-${i}`, i, i === badAt ? "10.5" : "1000")))].join("\n") + "\n"

const check = (text: string, options: { skipInvalid: boolean }) =>
  Effect.gen(function* () {
    const dir = tempDir()
    const earlier = join(dir, "earlier.csv")
    writeFileSync(earlier, `${HEADER}\n${row("OLD-1", 900)}\n`)
    const file = join(dir, "batch.csv")
    writeFileSync(file, text)
    return yield* Effect.gen(function* () {
      expect((yield* intake({ accountId: ACCOUNT, file: earlier, skipInvalid: false, allowRepeats: false, repeatWindow: Duration.hours(24) }))._tag).toBe("Loaded")
      const batchId = yield* fileBatchId(file)
      let opened = 0
      const since = DateTime.subtractDuration(yield* DateTime.now, Duration.hours(24))
      const open = Effect.suspend(() => {
        opened++
        return makeCrossBatch({ accountId: ACCOUNT, batchId, allowRepeats: false, since, guards: NO_GUARDS })
      })
      const input = { batchId, file, fileName: "batch.csv", allowRepeats: false, skipInvalid: options.skipInvalid }
      const result = yield* checkFile(input, { open, ownFirst: true })
      return { result, opened, reasons: result.errors.map((e) => `${e.line} ${e.column} ${e.reason}`) }
    }).pipe(Effect.provide(Layer.mergeAll(SqliteStateStore.layer({ filename: join(dir, "state.db") }), NodeContext.layer)))
  })

describe("payouts validate: the file's own checks first", () => {
  it.live("an invalid row refuses the file on its own errors; the store is never asked, even for the rows before it", () =>
    Effect.gen(function* () {
      for (const badAt of [0, 150]) {
        const { opened, reasons, result } = yield* check(fileOf(200, badAt), { skipInvalid: false })
        expect(result._tag).toBe("Refused")
        expect(reasons).toEqual([`${badAt + 2} amount amount must be a whole number for XAF`])
        if (badAt === 0) expect(opened).toBe(0)
        else expect(opened).toBeLessThanOrEqual(1)
      }
    }), 60_000)

  it.live("a file valid on its own, or --skip-invalid, asks the store once and lists the other batches' errors too", () =>
    Effect.gen(function* () {
      const valid = yield* check(fileOf(200), { skipInvalid: false })
      expect(valid.result._tag).toBe("Refused")
      expect(valid.opened).toBe(1)
      expect(valid.reasons).toEqual([`4 id id "OLD-1" was already used in earlier.csv line 2 (validated)`])
      const skipping = yield* check(fileOf(200, 150), { skipInvalid: true })
      expect(skipping.result._tag).toBe("Checked")
      expect(skipping.opened).toBe(1)
      expect(skipping.reasons).toEqual([`4 id id "OLD-1" was already used in earlier.csv line 2 (validated)`, `152 amount amount must be a whole number for XAF`])
    }), 60_000)
})
