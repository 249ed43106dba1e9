/**
 * A file is read once: the batch id names exactly the bytes parsed. A FileSystem that saves another
 * file over the batch file just before its second open (as a spreadsheet saving over it between the
 * hash and the parse would) makes `payouts run`'s intake and `payouts validate`'s checks refuse the file (FileChanged, exit 2), with nothing kept in the store.
 */
import { FileSystem } from "@effect/platform"
import { NodeContext, NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe as describeFailure } from "../../src/cli/Failure.ts"
import { AccountId } from "../../src/domain/Ids.ts"
import { makeCrossBatch } from "../../src/intake/CrossBatch.ts"
import { checkFile } from "../../src/intake/DryRun.ts"
import { NO_GUARDS } from "../../src/intake/Guards.ts"
import { intake } from "../../src/intake/Intake.ts"
import { fileBatchId } from "../../src/intake/FileBatchId.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { HEADER } from "./support.ts"
import { tempDir } from "../kit/TempDir.ts"

const ACCOUNT = AccountId.make("acct-read-once")
const row = (id: string, i: number) => `${id},1000,XAF,carrier1_cm,+23767${String(1_000_000 + i).slice(-7)},Seller ${i},s${i}@example.com`
const fileOf = (prefix: string, n: number) => [HEADER, ...Array.from({ length: n }, (_, i) => row(`${prefix}-${i}`, i))].join("\n") + "\n"

/** The node FileSystem, except that the `nth` open of `path` first writes `content` over it. */
const swapAtOpen = (path: string, nth: number, content: string) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs) => {
      let opens = 0
      return {
        ...fs,
        open: (file: string, options?: FileSystem.OpenFileOptions) =>
          Effect.suspend(() => {
            if (file === path && ++opens === nth) writeFileSync(path, content)
            return fs.open(file, options)
          })
      }
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))

const setup = () => {
  const dir = tempDir()
  const file = join(dir, "batch.csv")
  const first = fileOf("A", 300)
  const second = fileOf("B", 300)
  writeFileSync(file, first)
  return { dir, file, second, store: withHandles(SqliteStateStore.layer({ filename: join(dir, "state.db") })) }
}

describe("a file is read once", () => {
  it.live("payouts run's intake: the file swapped between the hash and the parse is refused, nothing stored", () => {
    const { file, second, store } = setup()
    return Effect.gen(function* () {
      const before = yield* fileBatchId(file)
      const loading = intake({ accountId: ACCOUNT, file, skipInvalid: false, allowRepeats: false, repeatWindow: Duration.hours(24) })
      // Open 1 is the hash (the batch id), open 2 the parse.
      const error = yield* Effect.flip(loading.pipe(Effect.provide(swapAtOpen(file, 2, second))))
      expect(error._tag).toBe("FileChanged")
      expect(error.message).toBe(`${file} changed while it was read (its content hash differs between two reads): nothing was paid; run it again once the file is complete`)
      expect(describeFailure(error)).toEqual({ message: error.message, code: 2 })
      const stored = yield* StateStore
      for (const batchId of [before, yield* fileBatchId(file)]) expect(Option.isNone(yield* stored.batch(ACCOUNT, batchId).getBatch())).toBe(true)
      expect(yield* stored.account(ACCOUNT).listBatches()).toEqual([])
      // The file left alone is loaded: it is the swap that was refused.
      const loaded = yield* intake({ accountId: ACCOUNT, file, skipInvalid: false, allowRepeats: false, repeatWindow: Duration.hours(24) })
      expect(loaded._tag).toBe("Loaded")
    }).pipe(Effect.provide(Layer.mergeAll(store, NodeContext.layer)))
  }, 60_000)

  it.live("payouts validate: the same swap is refused", () =>
    Effect.gen(function* () {
      const { file, second, store } = setup()
      const result = yield* Effect.gen(function* () {
        const batchId = yield* fileBatchId(file)
        const since = DateTime.subtractDuration(yield* DateTime.now, Duration.hours(24))
        const input = { batchId, file, fileName: "batch.csv", allowRepeats: false, skipInvalid: false }
        const open = makeCrossBatch({ accountId: ACCOUNT, batchId, allowRepeats: false, since, guards: NO_GUARDS })
        // Open 1 of the layer below is the check's own read (the id was hashed above, unswapped).
        return yield* Effect.flip(checkFile(input, { open, ownFirst: true }).pipe(Effect.provide(swapAtOpen(file, 1, second))))
      }).pipe(Effect.provide(Layer.mergeAll(store, NodeContext.layer)))
      expect(result._tag).toBe("FileChanged")
    }), 60_000)
})
