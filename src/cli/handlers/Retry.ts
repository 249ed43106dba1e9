/**
 * `payouts retry BATCH`: builds the child batch (src/run/RetryBatch.ts) beside the current directory,
 * in `--out`, or in a job folder's inbox, then pays it through `payouts run` (or leaves it to the
 * watcher). Loaded when the command runs.
 */
import { Console, Effect, Option } from "effect"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { describeLeftOut, makeRetryBatch, type RetryPlacement, type RetryRefused } from "../../run/RetryBatch.ts"
import type { retryCommand } from "../commands/Retry.ts"
import { DEFAULT_TIME_SCALE } from "../commands/Run.ts"
import { UsageError } from "../Errors.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { storeFor } from "../StoreLocation.ts"
import { openStore } from "../StoreOpen.ts"
import { run } from "./Run.ts"

export const retry = ({ args, batch, jobs }: Parsed<typeof retryCommand>) =>
  Effect.gen(function* () {
    const dir = Option.getOrElse(jobs, () => Option.getOrElse(args.out, () => "."))
    // The store of the folder the child goes to (a watched folder's own), as run and watch would find it.
    const store = yield* storeFor(args.state, dir)
    const account = yield* accountOf(args.connection)
    const folder = Option.map(jobs, jobFolder)
    const place = Option.match(folder, {
      onNone: (): RetryPlacement => ({ mode: "run" }),
      onSome: (f): RetryPlacement => ({ mode: "jobs", elsewhere: [f.awaiting, f.processing] })
    })
    const made = yield* Effect.gen(function* () {
      const parent = yield* findBatch(account, batch)
      return yield* makeRetryBatch(account, parent, dir, place)
    }).pipe(
      Effect.catchTag("RetryRefused", (e: RetryRefused) => new UsageError({ reason: e.reason })),
      Effect.provide(openStore(store))
    )
    const already = `Batch ${made.parent} was already retried as batch ${made.child}`
    if (Option.isSome(made.existing) && made.existing.value === "done") {
      return yield* Console.error(
        `${already}, which ran to its end: nothing is paid again. Its outputs again: payouts ledger ${made.child}; what failed there: payouts retry ${made.child}.`
      )
    }
    if (!made.placed) {
      const where = Option.isSome(made.existing) ? `its run is under way or paused (${made.existing.value}; payouts batches)` : "its file waits in the job folder (awaiting approval or processing)"
      return yield* Console.error(`${already}: ${where}. Nothing new was written.`)
    }
    yield* Console.error(
      Option.isSome(made.existing)
        ? `${already} (${made.existing.value}): resuming it from ${made.file}; no row is paid twice.`
        : `Retry of batch ${made.parent} (retry generation ${made.generation}): ${made.rows} row(s) in ${made.file}, batch ${made.child}.`
    )
    const left = describeLeftOut(made.leftOut)
    if (left !== "") yield* Console.error(`Left out, never retried: ${left} (a person decides; payouts resolve ${made.parent} shows the unknown and alarmed rows).`)
    if (Option.isSome(folder)) {
      return yield* Console.error(
        `Left in the job folder: the watcher validates and preflights it, puts it up for approval when it runs with --require-approval (payouts approve ${made.child} --jobs ${folder.value.root} --by NAME), then pays it.`
      )
    }
    // retry takes no --sandbox (its commands/Retry.ts): run gets the service that ran the parent.
    return yield* run({ args: { ...args, sandbox: false, timeScale: DEFAULT_TIME_SCALE }, file: made.file })
  })
