/** The summary JSON as other parts read it back (watcher, report, approval, reconcile): decoded, never trusted. */
import { FileSystem } from "@effect/platform"
import { Effect, Schema } from "effect"
import { writeTextAtomic } from "./AtomicFile.ts"

export const CurrencyTotals = Schema.Struct({
  rows: Schema.Number,
  amount: Schema.String,
  completed_amount: Schema.String,
  fees: Schema.String,
  /** The preflight's estimate for the rows sent, beside the fees charged (absent from older summaries). */
  fees_estimated: Schema.optional(Schema.String)
})

export const StuckRow = Schema.Struct({
  line: Schema.Number,
  id: Schema.NullOr(Schema.String),
  operator: Schema.String,
  status: Schema.String,
  reference: Schema.NullOr(Schema.String),
  since: Schema.String
})

export const Approval = Schema.Struct({
  by: Schema.String,
  at: Schema.String,
  /** What was approved: the batch id (the file's hash) and its control totals. */
  what: Schema.optional(Schema.Unknown)
})

export const Summary = Schema.Struct({
  batch_id: Schema.String,
  file: Schema.String,
  outcome: Schema.String,
  started_at: Schema.optional(Schema.String),
  finished_at: Schema.optional(Schema.String),
  counts: Schema.Record({ key: Schema.String, value: Schema.Number }),
  total_rows: Schema.optional(Schema.Number),
  totals: Schema.optionalWith(Schema.Record({ key: Schema.String, value: CurrencyTotals }), { default: () => ({}) }),
  stuck: Schema.optionalWith(Schema.Array(StuckRow), { default: () => [] }),
  paused: Schema.optional(Schema.String),
  ledger: Schema.optional(Schema.String),
  report: Schema.optional(Schema.String),
  errors_file: Schema.optional(Schema.String),
  approval: Schema.optional(Approval),
  exit_code: Schema.Number
})
export type Summary = typeof Summary.Type

const decodeJson = Schema.decodeUnknown(Schema.parseJson(Summary))

/** Reads a summary file; fails with the parse error when it is not one. */
export const readSummary = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* decodeJson(yield* fs.readFileString(path))
  })

export const decodeSummary = Schema.decodeUnknown(Summary)

/** Adds (or replaces) fields of a summary file, keeping every other field as it was. */
export const amendSummary = (path: string, fields: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const raw = yield* Schema.decodeUnknown(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))(
      yield* fs.readFileString(path)
    )
    yield* writeTextAtomic(path, `${JSON.stringify({ ...raw, ...fields }, null, 2)}\n`)
  })
