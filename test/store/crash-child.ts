/**
 * Run by crash.test.ts in child processes. `kill` mode claims forever, reporting counts, until the
 * parent SIGKILLs it; `race` mode claims until nothing is left and prints the idxs it got.
 */
import { Effect, Layer } from "effect"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import { ACCOUNT, newBatch, rowInputs } from "./fixtures.ts"
import { BatchId } from "../../src/domain/Ids.ts"

const [filename, mode, total] = process.argv.slice(2)

const program = Effect.gen(function* () {
  const store = yield* StateStore
  yield* store.createBatch(newBatch("crash"), rowInputs(Number(total)))
  const mine: Array<number> = []
  while (true) {
    const rows = yield* store.batch(ACCOUNT, BatchId.make("crash")).claimRows({ limit: 7 })
    if (rows.length === 0) break
    mine.push(...rows.map((row) => row.idx))
    if (mode === "kill") process.stdout.write(`${mine.length}\n`)
    yield* Effect.yieldNow()
  }
  if (mode === "race") process.stdout.write(JSON.stringify(mine))
  else yield* Effect.never
})

// A child process: its parent reads its output or kills it; a failure ends it with a non-zero code.
void Effect.runPromise(program.pipe(Effect.provide(Layer.fresh(withHandles(SqliteStateStore.layer({ filename }))))))
