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

/** A row a person must decide, as the summary lists it. */
export const AlarmedRow = Schema.Struct({
  line: Schema.Number,
  reason: Schema.optional(Schema.String),
  references: Schema.Array(Schema.String)
})

/** A row accepted under --allow-shared-phone: its phone (masked) paid on an earlier line to another name. */
export const SharedPhoneNote = Schema.Struct({
  line: Schema.Number,
  phone: Schema.String,
  name: Schema.String,
  first_line: Schema.Number,
  first_name: Schema.String
})

/** A row paying a phone (masked) that another batch sent to another name: listed, not refused. */
export const SharedHistoryNote = Schema.Struct({
  line: Schema.Number,
  phone: Schema.String,
  name: Schema.String,
  earlier_name: Schema.String,
  earlier_batch: Schema.String,
  earlier_file: Schema.String,
  earlier_line: Schema.Number
})

/** The rows paying a phone another batch paid to another name: how many, the first of them. */
export const SharedPhonesHistory = Schema.Struct({ count: Schema.Number, rows: Schema.Array(SharedHistoryNote) })

/**
 * Rows this batch did not pay although they are paid (output/AlreadyPaid.ts): adopted from the
 * service's listing (`listed`: paid outside this state store), or paid by the batch's earlier run
 * when the same content is run again (`earlier_run`). Counted here, never in `counts.completed` or
 * the `totals`: those are what this batch paid.
 */
export const AlreadyPaid = Schema.Struct({
  rows: Schema.Number,
  /** Per currency: rows, their amount and the fees charged for them (plain decimals, as `totals`). */
  totals: Schema.Record({ key: Schema.String, value: Schema.Struct({ rows: Schema.Number, amount: Schema.String, fees: Schema.String }) }),
  /** Of the rows, those whose payout was found in the service's listing and adopted. */
  listed: Schema.optional(Schema.Number),
  /** The days their payouts became final, as the store recorded them (YYYY-MM-DD, UTC). */
  first_day: Schema.optional(Schema.String),
  last_day: Schema.optional(Schema.String),
  /** The batch was done before this run: the same content run again; its first file's name. */
  earlier_run: Schema.optional(Schema.Struct({ batch_id: Schema.String, file: Schema.String }))
})
export type AlreadyPaid = typeof AlreadyPaid.Type

export const HaltNote = Schema.Struct({ by: Schema.String, at: Schema.String, reason: Schema.String })

/**
 * Every field a summary file holds (DESIGN 9): a run writes it encoded from this schema, so a field
 * the schema does not name cannot slip into the file, and every reader decodes the same shape.
 */
export const Summary = Schema.Struct({
  batch_id: Schema.String,
  file: Schema.String,
  outcome: Schema.String,
  started_at: Schema.optional(Schema.String),
  finished_at: Schema.optional(Schema.String),
  duration_ms: Schema.optional(Schema.Number),
  counts: Schema.Record({ key: Schema.String, value: Schema.Number }),
  total_rows: Schema.optional(Schema.Number),
  totals: Schema.optionalWith(Schema.Record({ key: Schema.String, value: CurrencyTotals }), { default: () => ({}) }),
  /** `payouts validate`: the preflight's fee estimate per currency. */
  fee_estimates: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  alarms: Schema.optional(Schema.Array(AlarmedRow)),
  account_alarm: Schema.optional(Schema.String),
  /** Rows the pre-scan found already paid (by their token) and adopted. */
  already_paid_adopted: Schema.optional(Schema.Number),
  /** Rows paid, but not by this batch (see AlreadyPaid); they are counted as `counts.already_paid`. */
  already_paid: Schema.optional(AlreadyPaid),
  stuck: Schema.optionalWith(Schema.Array(StuckRow), { default: () => [] }),
  paused: Schema.optional(Schema.String),
  halted: Schema.optional(HaltNote),
  /** An invalid file: how many errors, listed in errors_file. */
  errors: Schema.optional(Schema.Number),
  ledger: Schema.optional(Schema.String),
  report: Schema.optional(Schema.String),
  errors_file: Schema.optional(Schema.String),
  outputs_error: Schema.optional(Schema.String),
  /** `payouts ledger`: the batch's state when its outputs were written again. */
  batch_state: Schema.optional(Schema.String),
  approval: Schema.optional(Approval),
  /** One phone, one recipient: --allow-shared-phone was given, the rows it accepted, the phones paid before to other names. */
  allow_shared_phone: Schema.optional(Schema.Boolean),
  shared_phones: Schema.optional(Schema.Struct({ count: Schema.Number, rows: Schema.Array(SharedPhoneNote) })),
  shared_phones_history: Schema.optional(SharedPhonesHistory),
  /** A `payouts retry` batch: the batch whose failed rows it pays again. */
  parent: Schema.optional(Schema.String),
  exit_code: Schema.Number
})
export type Summary = typeof Summary.Type

const encodeSummary = Schema.encode(Summary)

/** Writes a run's summary file, encoded from the schema (a field it does not name is refused, not dropped). */
export const writeSummaryJson = (path: string, summary: Summary) =>
  Effect.flatMap(Effect.orDie(encodeSummary(summary, { onExcessProperty: "error" })), (encoded) =>
    writeTextAtomic(path, `${JSON.stringify(encoded, null, 2)}\n`)
  )

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
