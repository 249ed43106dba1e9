/**
 * `--require-approval`: a validated, preflighted batch waits in `awaiting-approval/` with
 * `<name>.approval.json` (rows, totals and fee estimates per currency) until `payouts approve`
 * moves it to `processing/` (recording who and when) or `payouts reject` moves it to `rejected/`.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Data, DateTime, Effect, Option, Schema } from "effect"
import { join } from "node:path"
import { writeTextAtomic } from "../batch/LedgerFile.ts"
import { batchFilesIn, type JobFolder, moveBatch, outputOf } from "./JobFolder.ts"

export const ApprovalFile = Schema.Struct({
  batch_id: Schema.String,
  file: Schema.String,
  status: Schema.Literal("awaiting", "approved", "rejected"),
  submitted_at: Schema.String,
  rows: Schema.Number,
  currencies: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ rows: Schema.Number, amount: Schema.String, fee_estimate: Schema.String, total: Schema.String })
  }),
  preflight: Schema.optional(Schema.String),
  approved_by: Schema.optional(Schema.String),
  approved_at: Schema.optional(Schema.String),
  rejected_by: Schema.optional(Schema.String),
  rejected_at: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String)
})
export type ApprovalFile = typeof ApprovalFile.Type

export class ApprovalError extends Data.TaggedError("ApprovalError")<{ readonly message: string }> {}

const decode = Schema.decodeUnknown(Schema.parseJson(ApprovalFile))
const encode = Schema.encodeSync(ApprovalFile)

export const writeApproval = (path: string, approval: ApprovalFile) =>
  writeTextAtomic(path, `${JSON.stringify(encode(approval), null, 2)}\n`)

export const readApproval = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* decode(yield* fs.readFileString(path))
  })

/** The approval record beside a batch file, if it has one that decodes. */
export const approvalOf = (csvPath: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = outputOf(csvPath, ".approval.json")
    if (!(yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)))) return Option.none<ApprovalFile>()
    return yield* readApproval(path).pipe(Effect.option)
  })

/** The one batch waiting for approval whose id starts with `id`. */
export const findAwaiting = (folder: JobFolder, id: string) =>
  Effect.gen(function* () {
    const found: Array<{ csv: string; approval: ApprovalFile }> = []
    for (const name of yield* batchFilesIn(folder.awaiting)) {
      const csv = join(folder.awaiting, name)
      const approval = yield* approvalOf(csv)
      if (Option.isSome(approval) && approval.value.batch_id.startsWith(id.trim().toLowerCase())) found.push({ csv, approval: approval.value })
    }
    if (id.trim().length < 4) return yield* new ApprovalError({ message: `batch id "${id}" is too short: give at least 4 characters` })
    if (found.length === 0) return yield* new ApprovalError({ message: `no batch ${id} is waiting for approval in ${folder.awaiting}` })
    if (found.length > 1) return yield* new ApprovalError({ message: `"${id}" matches ${found.length} batches waiting for approval: give more of the id` })
    return found[0]
  })

const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => DateTime.formatIso(DateTime.unsafeMake(ms)))

/** Records the approval and hands the batch to the watcher (processing/). */
export const approve = (folder: JobFolder, id: string, by: string) =>
  Effect.gen(function* () {
    const { approval, csv } = yield* findAwaiting(folder, id)
    yield* writeApproval(outputOf(csv, ".approval.json"), { ...approval, status: "approved", approved_by: by, approved_at: yield* nowIso })
    const moved = yield* moveBatch(csv, folder.awaiting, folder.processing)
    return { approval, file: moved }
  })

/** Drops a waiting batch: it moves to rejected/ and is never paid. */
export const reject = (folder: JobFolder, id: string, by: string, reason: string | undefined) =>
  Effect.gen(function* () {
    const { approval, csv } = yield* findAwaiting(folder, id)
    yield* writeApproval(outputOf(csv, ".approval.json"), {
      ...approval,
      status: "rejected",
      rejected_by: by,
      rejected_at: yield* nowIso,
      ...(reason === undefined ? {} : { reason })
    })
    const moved = yield* moveBatch(csv, folder.awaiting, folder.rejected)
    return { approval, file: moved }
  })
