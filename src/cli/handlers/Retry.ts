/**
 * `payouts retry BATCH [--fix FILE]`: builds the child batch (src/run/RetryBatch.ts, or RetryFix.ts for
 * corrected rows) beside the current directory, in `--out`, or in a job folder's inbox, then pays it
 * through `payouts run` (its confirmation included) or leaves it to the watcher. Loaded when the
 * command runs.
 */
import { Console, Effect, Option } from "effect"
import { dirname } from "node:path"
import { maskPhone } from "../../domain/Phone.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { formatRowErrors } from "../../output/ErrorsFile.ts"
import { type LeftOut, makeRetryBatch, type RetryPlacement, type RetryRefused } from "../../run/RetryBatch.ts"
import { type Fix, makeFixBatch } from "../../run/RetryFix.ts"
import type { retryCommand } from "../commands/Retry.ts"
import { DEFAULT_TIME_SCALE } from "../commands/Run.ts"
import { UsageError } from "../Errors.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { leftOutText, retryRefusalText } from "../RetryText.ts"
import { storeFor } from "../StoreLocation.ts"
import { openStore } from "../StoreOpen.ts"
import { run } from "./Run.ts"

/** What `retry --json` prints when nothing is paid now (a run prints its own summary instead). */
export interface RetryNotice {
  readonly retry_of: string
  readonly batch_id: string | null
  readonly status: "done" | "under_way" | "waiting_in_job_folder" | "left_in_job_folder" | "refused"
  readonly rows: number
  readonly left_out: { readonly unknown_or_abandoned: number; readonly alarmed: number; readonly resent: number; readonly fixed?: number } | null
  readonly message: string
  /** `--fix`: the file's refused lines (line, column, value, reason). */
  readonly errors?: ReadonlyArray<{ readonly line: number | undefined; readonly column: string; readonly value: string; readonly reason: string }>
}

const leftOutJson = (left: LeftOut | undefined): RetryNotice["left_out"] =>
  left === undefined
    ? null
    : { unknown_or_abandoned: left.inDoubt, alarmed: left.alarmed, resent: left.resent, ...(left.fixed === undefined ? {} : { fixed: left.fixed }) }

/** What a fix changes, one line per row (phones masked: this is a terminal, maybe a shared log). */
const describeFix = (fix: Fix, parent: string, childLine: number): string => {
  const { corrected: c, original: o } = fix
  const changes = [
    o.phone === c.phone ? "" : `phone ${maskPhone(o.phone)} -> ${maskPhone(c.phone)}`,
    o.operator === c.operator ? "" : `operator ${o.operator} -> ${c.operator}`,
    o.name === c.name ? "" : `name "${o.name}" -> "${c.name}"`
  ].filter((part) => part !== "")
  return `  line ${fix.line} (id ${o.rowId ?? ""}): fixes row ${o.line} of batch ${parent}, paid again as line ${childLine}: ${changes.length === 0 ? "unchanged" : changes.join(", ")}`
}

export const retry = ({ args, batch, fix, jobs }: Parsed<typeof retryCommand>) =>
  Effect.gen(function* () {
    // Outputs go beside the input (DESIGN 9): a fix's beside its FILE (a report's unpaid.csv: beside the report).
    const dir = Option.getOrElse(jobs, () => Option.getOrElse(args.out, () => Option.match(fix, { onNone: () => ".", onSome: dirname })))
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
      const made = Option.match(fix, {
        onNone: () => Effect.map(makeRetryBatch(account, parent, dir, place), (m) => ({ ...m, corrections: [] as ReadonlyArray<Fix> })),
        onSome: (file) => makeFixBatch(account, parent, file, dir, place)
      })
      return yield* made.pipe(
        Effect.catchTag("RetryRefused", (e: RetryRefused) =>
          Effect.zipRight(
            Effect.zipRight(
              e.errors === undefined || e.errors.length === 0 ? Effect.void : Console.error(formatRowErrors(e.errors, { file: Option.getOrElse(fix, () => "") })),
              args.json
                ? printJson({
                  retry_of: parent.batchId,
                  batch_id: null,
                  status: "refused",
                  rows: 0,
                  left_out: leftOutJson(e.leftOut),
                  message: retryRefusalText(e.refusal),
                  ...(e.errors === undefined ? {} : { errors: e.errors })
                } satisfies RetryNotice)
                : Effect.void
            ),
            new UsageError({ reason: retryRefusalText(e.refusal) })
          )
        )
      )
    }).pipe(Effect.provide(openStore(store)))
    const base = { retry_of: made.parent, batch_id: made.child, rows: made.rows, left_out: leftOutJson(made.leftOut) }
    const already = made.fixes
      ? `The rows of ${Option.getOrElse(fix, () => "")} were already paid again as batch ${made.child} (fixes of batch ${made.parent})`
      : `Batch ${made.parent} was already retried as batch ${made.child}`
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
        : made.fixes
        ? `Fix of batch ${made.parent} (retry generation ${made.generation}): ${made.rows} corrected row(s) in ${made.file}, batch ${made.child}.`
        : `Retry of batch ${made.parent} (retry generation ${made.generation}): ${made.rows} row(s) in ${made.file}, batch ${made.child}.`
    )
    if (made.corrections.length > 0) {
      yield* Console.error(made.corrections.map((f, i) => describeFix(f, made.parent, made.lines[i])).join("\n"))
    }
    const left = leftOutText(made.leftOut)
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
