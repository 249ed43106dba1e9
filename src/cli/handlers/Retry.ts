/**
 * `payouts retry BATCH`: builds the child batch (src/run/RetryBatch.ts) beside the current directory,
 * in `--out`, or in a job folder's inbox, then pays it through `payouts run` (or leaves it to the
 * watcher). Loaded when the command runs.
 */
import { Console, Effect, Option } from "effect"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { describeLeftOut, type LeftOut, makeRetryBatch, type RetryPlacement, type RetryRefused } from "../../run/RetryBatch.ts"
import type { retryCommand } from "../commands/Retry.ts"
import { DEFAULT_TIME_SCALE } from "../commands/Run.ts"
import { UsageError } from "../Errors.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { storeFor } from "../StoreLocation.ts"
import { openStore } from "../StoreOpen.ts"
import { run } from "./Run.ts"

/** What `retry --json` prints when nothing is paid now (a run prints its own summary instead). */
export interface RetryNotice {
  readonly retry_of: string
  readonly batch_id: string | null
  readonly status: "done" | "under_way" | "waiting_in_job_folder" | "left_in_job_folder" | "refused"
  readonly rows: number
  readonly left_out: { readonly unknown_or_abandoned: number; readonly alarmed: number; readonly resent: number } | null
  readonly message: string
}

const leftOutJson = (left: LeftOut | undefined): RetryNotice["left_out"] =>
  left === undefined ? null : { unknown_or_abandoned: left.inDoubt, alarmed: left.alarmed, resent: left.resent }

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
    // Told on stderr; with --json also as one object on stdout, so a script always gets an answer.
    const tell = (notice: RetryNotice) => Effect.zipRight(Console.error(notice.message), args.json ? printJson(notice) : Effect.void)
    const made = yield* Effect.gen(function* () {
      const parent = yield* findBatch(account, batch)
      return yield* makeRetryBatch(account, parent, dir, place).pipe(
        Effect.catchTag("RetryRefused", (e: RetryRefused) =>
          Effect.zipRight(
            args.json
              ? printJson({ retry_of: parent.batchId, batch_id: null, status: "refused", rows: 0, left_out: leftOutJson(e.leftOut), message: e.reason } satisfies RetryNotice)
              : Effect.void,
            new UsageError({ reason: e.reason })
          )
        )
      )
    }).pipe(Effect.provide(openStore(store)))
    const base = { retry_of: made.parent, batch_id: made.child, rows: made.rows, left_out: leftOutJson(made.leftOut) }
    const already = `Batch ${made.parent} was already retried as batch ${made.child}`
    if (Option.isSome(made.existing) && made.existing.value === "done") {
      return yield* tell({
        ...base,
        status: "done",
        message: `${already}, which ran to its end: nothing is paid again. Its outputs again: payouts ledger ${made.child}; what failed there: payouts retry ${made.child}.`
      })
    }
    if (!made.placed) {
      const where = Option.match(made.existing, {
        onNone: () => "its file waits in the job folder (awaiting approval or processing)",
        onSome: (state) => `its run is under way or paused (${state}; payouts batches)`
      })
      const status = Option.isSome(made.existing) ? "under_way" : "waiting_in_job_folder"
      return yield* tell({ ...base, status, message: `${already}: ${where}. Nothing new was written.` })
    }
    yield* Console.error(
      Option.isSome(made.existing)
        ? `${already} (${made.existing.value}): resuming it from ${made.file}; no row is paid twice.`
        : `Retry of batch ${made.parent} (retry generation ${made.generation}): ${made.rows} row(s) in ${made.file}, batch ${made.child}.`
    )
    const left = describeLeftOut(made.leftOut)
    if (left !== "") yield* Console.error(`Left out, never retried: ${left} (a person decides; payouts resolve ${made.parent} shows the unknown and alarmed rows).`)
    if (Option.isSome(folder)) {
      return yield* tell({
        ...base,
        status: "left_in_job_folder",
        message: `Left in the job folder: the watcher validates and preflights it, puts it up for approval when it runs with --require-approval (payouts approve ${made.child} --jobs ${folder.value.root} --by NAME), then pays it.`
      })
    }
    // retry takes no --sandbox (its commands/Retry.ts): run gets the service that ran the parent.
    return yield* run({ args: { ...args, sandbox: false, timeScale: DEFAULT_TIME_SCALE }, file: made.file })
  })
