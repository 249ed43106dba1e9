import { Console, Effect } from "effect"
import { Batches } from "../../store/Sql/Batches.ts"
import type { resumeCommand } from "../commands/Resume.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { storeLayer } from "../StoreLocation.ts"

export const resume = ({ batch, connection, jobs, state }: Parsed<typeof resumeCommand>) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const account = yield* accountOf(connection)
    const found = yield* findBatch(account, batch)
    if (found.state !== "paused") {
      return yield* Console.error(`Batch ${found.batchId} is not paused (${found.state}); nothing to do.`)
    }
    yield* batches.setBatchState(account, found.batchId, "open", null)
    yield* Console.error(
      `Batch ${found.batchId} (${found.fileName}) resumed (was paused: ${found.pauseReason ?? "no reason recorded"}). ` +
      `The watcher takes it up on its next pass; or run the file again with payouts run.`
    )
  }).pipe(Effect.provide(storeLayer(state, jobs)))
