/** `payouts resume BATCH`: lifts a pause (stop rule, circuit breaker); the next run or watch pass goes on. */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { StateStore } from "../../store/StateStore.ts"
import { accountOf, batchArg, findBatch, jobsOption, jobsStateOption } from "../Jobs.ts"
import { storeLayer } from "../StoreLocation.ts"
import { connectionOptions } from "../Settings.ts"

export const resumeCommand = Command.make(
  "resume",
  { batch: batchArg, jobs: jobsOption, state: jobsStateOption, connection: connectionOptions },
  ({ batch, connection, jobs, state }) =>
    Effect.gen(function* () {
      const store = yield* StateStore
      const account = yield* accountOf(connection)
      const found = yield* findBatch(account, batch)
      if (found.state !== "paused") {
        return yield* Console.error(`Batch ${found.batchId} is not paused (${found.state}); nothing to do.`)
      }
      yield* store.batch(account, found.batchId).setBatchState("open", null)
      yield* Console.error(
        `Batch ${found.batchId} (${found.fileName}) resumed (was paused: ${found.pauseReason ?? "no reason recorded"}). ` +
        `The watcher takes it up on its next pass; or run the file again with payouts run.`
      )
    }).pipe(Effect.provide(storeLayer(state, jobs)))
).pipe(Command.withDescription("Resume a paused batch: clears the pause so the next run or watch pass continues it."))
