/**
 * `payouts retry BATCH`: the child batch that pays again what a finished batch proved unpaid. Its
 * rows are the parent's failed, cancelled and expired rows (never completed, refunded, unknown,
 * abandoned or alarmed ones), written as an ordinary CSV so that it is validated, preflighted, approved
 * and paid like any other file. The store links it to its parent once: its retry generation goes into
 * its tokens (RetryLineage.ts) and its rows may use their ids again (CrossBatch.ts); a second retry of
 * the same parent finds the same child (resumed, never paid twice) or is refused. Each child row is
 * linked to the parent row it pays again, once (a row a `--fix` child holds, RetryFix.ts, is left out).
 */
import { FileSystem } from "@effect/platform"
import { Data, Effect, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { basename, join } from "node:path"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { formatAmount } from "../domain/Money.ts"
import { CSV_COLUMNS, META_PREFIX } from "../intake/CsvHeader.ts"
import { fileBatchId } from "../intake/FileBatchId.ts"
import { retryLineage } from "../intake/RetryLineage.ts"
import { AMOUNT_AS_WRITTEN } from "../intake/CheckRecord.ts"
import { quoteCsv } from "../output/CsvCells.ts"
import { writeTextAtomic } from "../output/AtomicFile.ts"
import type { RowError } from "../intake/RowError.ts"
import { type Batch, type BatchState, isRetryable, type Row, type RowRetry } from "../store/Model.ts"
import { type RowState, SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { RetryLinks } from "../store/Sql/Retries.ts"

/** The payout detail each child row carries: the batch it retries (also what makes its file its own). */
export const RETRY_OF_DETAIL = "retry_of"

/** Rows that may still end failed: a retry waits for them, or it would leave them out for good. */
const NOT_YET_FINAL: ReadonlyArray<RowState> = ["validated", "submitting", "submitted", "pending", "processing"]

/**
 * `leftOut`: when the parent has nothing to retry, what it leaves to a person (for `retry --json`);
 * `errors`: a `--fix` file's refused lines (line, column, why).
 */
export class RetryRefused extends Data.TaggedError("RetryRefused")<{
  readonly refusal: RetryRefusal
  readonly leftOut?: LeftOut
  readonly errors?: ReadonlyArray<RowError>
}> {}

/** Why `payouts retry` makes no batch, as a typed fact the command line words (src/cli/RetryText.ts). */
export type RetryRefusal = Data.TaggedEnum<{
  /** Rows of the parent may still fail: `open` not final. */
  NotFinished: { readonly batchId: BatchId; readonly open: number; readonly fileName: string }
  NothingToRetry: { readonly batchId: BatchId; readonly leftOut: LeftOut }
  /** Rows of the parent were paid again by another child while this one was being linked. */
  TakenMeanwhile: { readonly batchId: BatchId; readonly rows: number; readonly by: BatchId }
  AlreadyRetried: { readonly batchId: BatchId; readonly child: BatchId; readonly generation: number }
  /** This child's file is already the retry of another parent. */
  RetryOfAnother: { readonly parent: BatchId }
  FileInTheWay: { readonly file: string }
  FixChanged: { readonly file: string }
  FixRefused: { readonly file: string }
  FixLinesRefused: { readonly file: string; readonly lines: number }
}>

export const RetryRefusal = Data.taggedEnum<RetryRefusal>()

export interface RetryBatch {
  readonly parent: BatchId
  readonly child: BatchId
  readonly generation: number
  /** Where the child's CSV is. */
  readonly file: string
  readonly rows: number
  readonly leftOut: LeftOut
  /** The child's state when an earlier `payouts retry` of the same parent already loaded it. */
  readonly existing: Option.Option<BatchState>
  /** Whether the file was put in place (left out when the child ran to its end, or waits in the job folder). */
  readonly placed: boolean
  /** A `--fix` child: corrected rows (several per parent), not the whole retry. */
  readonly fixes: boolean
  /** The line of the child's file each of its rows starts on, in order. */
  readonly lines: ReadonlyArray<number>
}

export interface RetryPlacement {
  /** `run`: paid now by `payouts run`; `jobs`: left in a job folder's inbox for the watcher. */
  readonly mode: "run" | "jobs"
  /** Folders where a copy of the child counts as already placed (awaiting approval, processing). */
  readonly elsewhere?: ReadonlyArray<string>
}

/** The parent's rows a retry leaves out, for a person (payouts resolve, or a new file). */
export interface LeftOut {
  /** unknown or abandoned */
  readonly inDoubt: number
  /** failed, cancelled or expired, but under alarm */
  readonly alarmed: number
  /** failed, cancelled or expired after an automatic resend */
  readonly resent: number
  /** paid again, corrected, by a `retry --fix` batch (counted when any) */
  readonly fixed?: number
}

/** The child's CSV and the physical line each row starts on (a quoted cell may hold a line break). */
export const retryCsvFile = (parent: BatchId, rows: ReadonlyArray<Row>): { readonly text: string; readonly lines: ReadonlyArray<number> } => {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.details)))].filter((k) => k !== AMOUNT_AS_WRITTEN && k !== RETRY_OF_DETAIL).sort()
  const header = [...CSV_COLUMNS, ...[...keys, RETRY_OF_DETAIL].map((k) => `${META_PREFIX}${k}`)]
  const cells = (r: Row) => [
    r.rowId ?? "",
    formatAmount(r.amountMinor ?? 0, r.currency),
    r.currency,
    r.operator,
    r.phone,
    r.name,
    r.email,
    r.description,
    ...keys.map((k) => r.details[k] ?? ""),
    parent
  ]
  // Cells quoted only where CSV needs it, never altered: the child must pay exactly what the parent meant to.
  const records = [header, ...rows.map(cells)].map((record) => record.map(quoteCsv).join(","))
  const lines: Array<number> = []
  let line = 1
  for (const [i, record] of records.entries()) {
    if (i > 0) lines.push(line)
    line += record.split("\n").length
  }
  return { text: records.join("\n") + "\n", lines }
}

const stemOf = (fileName: string) => fileName.replace(/\.csv$/i, "")

/**
 * Builds (or finds again) the child of `parent` as a CSV in `dir`. Refused while rows of the parent
 * may still fail, when it has nothing to retry, and when it was already retried as another batch.
 */
export const makeRetryBatch = Effect.fn("Retry.make")(function* (accountId: AccountId, parent: Batch, dir: string, place: RetryPlacement) {
  const [batches, reads, retries] = yield* Effect.all([Batches, Rows, RetryLinks])
  const counts = yield* batches.countByState(accountId, parent.batchId)
  const open = NOT_YET_FINAL.reduce((n, s) => n + counts[s], 0)
  if (open > 0) {
    return yield* new RetryRefused({ refusal: RetryRefusal.NotFinished({ batchId: parent.batchId, open, fileName: parent.fileName }) })
  }
  const failures = [...(yield* Stream.runCollect(reads.streamRowsInStates(accountId, parent.batchId, SETTLED_FAILURE_STATES)))]
  // Rows a `--fix` child pays again are its own; the whole retry's child (if any) keeps those it holds.
  const whole = (yield* retries.retryLinks(accountId)).find((l) => l.parentBatchId === parent.batchId && !l.fixes)?.childBatchId
  const fixedElsewhere = new Set(
    (yield* retries.rowRetries(accountId, parent.batchId)).filter((l) => l.parentBatchId === parent.batchId && l.childBatchId !== whole).map((l) => l.parentIdx)
  )
  const retryable = failures.filter(isRetryable)
  const rows = retryable.filter((r) => !fixedElsewhere.has(r.idx))
  const fixed = retryable.length - rows.length
  const leftOut: LeftOut = {
    inDoubt: counts.unknown + counts.abandoned,
    alarmed: failures.filter((r) => r.alarm !== null).length,
    resent: failures.filter((r) => r.alarm === null && r.resends > 0).length,
    ...(fixed > 0 ? { fixed } : {})
  }
  if (rows.length === 0) {
    return yield* new RetryRefused({ refusal: RetryRefusal.NothingToRetry({ batchId: parent.batchId, leftOut }), leftOut })
  }
  const generation = (yield* retryLineage(accountId, parent.batchId)).generation + 1
  return yield* placeChild(accountId, { parent, generation, rows, fixes: false, leftOut, name: () => `${stemOf(parent.fileName)}.retry${generation}.csv` }, dir, place)
})

/** A child to write: the rows it pays again (as they are to be paid), and its file's name. */
export interface ChildPlan {
  readonly parent: Batch
  readonly generation: number
  readonly rows: ReadonlyArray<Row>
  readonly fixes: boolean
  readonly leftOut: LeftOut
  readonly name: (child: BatchId) => string
  /** What to say when parent rows are paid again by another child already (`--fix` names the lines). */
  readonly taken?: (taken: ReadonlyArray<RowRetry>) => RetryRefused
}

/**
 * Writes the child's CSV in `dir`, links it and each of its rows to its parent (RowRetry), and puts the
 * file in place for what runs it next. Shared by the whole retry and `--fix` (RetryFix.ts).
 */
export const placeChild = Effect.fn("Retry.placeChild")(function* (accountId: AccountId, plan: ChildPlan, dir: string, place: RetryPlacement) {
  const [batches, retries] = yield* Effect.all([Batches, RetryLinks])
  const fs = yield* FileSystem.FileSystem
  const { generation, parent } = plan
  const csv = retryCsvFile(parent.batchId, plan.rows)
  // Written hidden first (the watcher never takes a hidden file), linked, then given its name; the
  // hidden name is this process's own, so two retries at once never write over each other's.
  const staged = join(dir, `.${stemOf(parent.fileName)}.retry${generation}.${randomUUID().slice(0, 8)}.staged`)
  yield* fs.makeDirectory(dir, { recursive: true })
  yield* writeTextAtomic(staged, csv.text)
  const child = yield* fileBatchId(staged)
  const file = join(dir, plan.name(child))
  const rows: ReadonlyArray<RowRetry> = plan.rows.map((r, i) => ({
    parentBatchId: parent.batchId,
    parentIdx: r.idx,
    parentLine: r.line,
    childBatchId: child,
    childIdx: i,
    childLine: csv.lines[i]
  }))
  const linked = yield* retries.linkRetryRows(accountId, { link: { parentBatchId: parent.batchId, childBatchId: child, generation }, fixes: plan.fixes, rows }).pipe(
    Effect.onError(() => fs.remove(staged).pipe(Effect.ignore))
  )
  if (linked._tag === "Taken") {
    yield* fs.remove(staged).pipe(Effect.ignore)
    return yield* (plan.taken?.(linked.taken) ??
      new RetryRefused({ refusal: RetryRefusal.TakenMeanwhile({ batchId: parent.batchId, rows: linked.taken.length, by: linked.taken[0].childBatchId }) }))
  }
  const link = linked.link
  if (link.childBatchId !== child || link.parentBatchId !== parent.batchId) {
    yield* fs.remove(staged).pipe(Effect.ignore)
    return yield* new RetryRefused({
      refusal: link.parentBatchId === parent.batchId
        ? RetryRefusal.AlreadyRetried({ batchId: parent.batchId, child: link.childBatchId, generation: link.generation })
        : RetryRefusal.RetryOfAnother({ parent: link.parentBatchId })
    })
  }
  const existing = Option.map(yield* batches.getBatch(accountId, child), (b) => b.state)
  const isChild = (path: string) => Effect.flatMap(fs.exists(path), (found) => (found ? Effect.map(fileBatchId(path), (id) => id === child) : Effect.succeed(false)))
  // The file is put in place only for what will run it next: a run resumes an unfinished child; a job
  // folder gets it once (never while a copy waits for approval or runs, never once it ran).
  const elsewhere = yield* Effect.filter(place.elsewhere ?? [], (d) => isChild(join(d, basename(file))))
  const wanted = Option.match(existing, { onNone: () => elsewhere.length === 0, onSome: (state) => place.mode === "run" && state !== "done" })
  if (!wanted) {
    yield* fs.remove(staged).pipe(Effect.ignore)
  } else if (yield* fs.exists(file)) {
    yield* fs.remove(staged).pipe(Effect.ignore)
    if (!(yield* isChild(file))) {
      return yield* new RetryRefused({ refusal: RetryRefusal.FileInTheWay({ file }) })
    }
  } else {
    yield* fs.rename(staged, file)
  }
  return { parent: parent.batchId, child, generation, file, rows: plan.rows.length, leftOut: plan.leftOut, existing, placed: wanted, fixes: plan.fixes, lines: csv.lines } satisfies RetryBatch
})
