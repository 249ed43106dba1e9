/**
 * What a notification says: the event, the batch and its figures, taken from the run's summary. Built
 * from this schema and encoded with excess properties refused, so nothing else (no phone number, no
 * secret, no row) can ride along.
 */
import { DateTime, Option, Schema } from "effect"
import { basename } from "node:path"

export const EventType = Schema.Literal("batch.done", "batch.rejected", "batch.paused", "batch.awaiting_approval", "batch.alarm")
export type EventType = typeof EventType.Type

/** Per currency, in its major unit as the summary writes it (`"5907350"`, `"12.50"`). */
export const CurrencyAmounts = Schema.Struct({
  rows: Schema.Number,
  amount: Schema.String,
  completed_amount: Schema.optional(Schema.String),
  fees: Schema.optional(Schema.String)
})

const RaisedAlarm = Schema.Struct({ line: Schema.Number, reason: Schema.String })

/** At most this many raised rows are listed in one notification (a deadline may alarm hundreds at once). */
export const RAISED_LISTED = 20

export const BatchEvent = Schema.Struct({
  batch_id: Schema.String,
  /** The batch file's name (a watched file moves between folders; its name stays). */
  file: Schema.String,
  /** `running` for an alarm raised while the run goes on (RowAlarm), else the summary's. */
  outcome: Schema.String,
  /** None while the run goes on (a row's alarm told at once): the run's end tells it. */
  exit_code: Schema.optional(Schema.Number),
  counts: Schema.Record({ key: Schema.String, value: Schema.Number }),
  amounts: Schema.Record({ key: Schema.String, value: CurrencyAmounts }),
  /** Rows under alarm (`batch.alarm`). */
  alarms: Schema.optional(Schema.Number),
  /** The rows that just became alarms, while the run goes on: each one's line in the file and why (no row data). */
  raised: Schema.optional(Schema.Array(RaisedAlarm)),
  /** Rows raised beyond the first RAISED_LISTED, not listed. */
  raised_more: Schema.optional(Schema.Number),
  /** Errors found in a refused file (`batch.rejected`), listed in its errors file. */
  errors: Schema.optional(Schema.Number)
})

/** The body POSTed, in the Standard Webhooks shape: type, timestamp, data. */
export const Notification = Schema.Struct({
  type: EventType,
  timestamp: Schema.String,
  data: BatchEvent
})
export type Notification = typeof Notification.Type

// The summary's fields a notification carries; everything else in it is left behind.
const SummaryFacts = Schema.Struct({
  batch_id: Schema.String,
  file: Schema.String,
  outcome: Schema.String,
  exit_code: Schema.optional(Schema.Number),
  counts: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Number }), { default: () => ({}) }),
  totals: Schema.optionalWith(Schema.Record({ key: Schema.String, value: CurrencyAmounts }), { default: () => ({}) }),
  alarms: Schema.optional(Schema.Array(Schema.Unknown)),
  errors: Schema.optional(Schema.Number),
  raised: Schema.optional(Schema.Array(RaisedAlarm))
})

const decodeFacts = Schema.decodeUnknownOption(SummaryFacts)

/** The notification of `type` for a run's summary at `atMillis`; none when the summary lacks the batch's facts. */
export const notificationOf = (type: EventType, summary: unknown, atMillis: number): Option.Option<Notification> =>
  Option.map(decodeFacts(summary), (facts) => ({
    type,
    timestamp: DateTime.formatIso(DateTime.unsafeMake(atMillis)),
    data: {
      batch_id: facts.batch_id,
      file: basename(facts.file),
      outcome: facts.outcome,
      ...(facts.exit_code === undefined ? {} : { exit_code: facts.exit_code }),
      counts: facts.counts,
      amounts: Object.fromEntries(
        Object.entries(facts.totals).map(([currency, t]) => [
          currency,
          { rows: t.rows, amount: t.amount, ...(t.completed_amount === undefined ? {} : { completed_amount: t.completed_amount }), ...(t.fees === undefined ? {} : { fees: t.fees }) }
        ])
      ),
      ...(facts.alarms === undefined || facts.alarms.length === 0 ? {} : { alarms: facts.alarms.length }),
      ...(facts.errors === undefined ? {} : { errors: facts.errors }),
      ...(facts.raised === undefined ? {} : { raised: facts.raised.slice(0, RAISED_LISTED) }),
      ...(facts.raised === undefined || facts.raised.length <= RAISED_LISTED ? {} : { raised_more: facts.raised.length - RAISED_LISTED })
    }
  }))

/**
 * What a run under way tells when rows become alarms (a person is wanted now, not at the run's end):
 * the batch, the counts so far, every row under alarm, and the new ones' lines and reasons.
 */
export const rowAlarmFacts = (facts: {
  readonly batchId: string
  readonly file: string
  readonly counts: Readonly<Record<string, number>>
  readonly alarms: ReadonlyArray<unknown>
  readonly raised: ReadonlyArray<{ readonly line: number; readonly reason: string }>
}) => ({
  batch_id: facts.batchId,
  file: facts.file,
  outcome: "running",
  counts: Object.fromEntries(Object.entries(facts.counts).filter(([, n]) => n > 0)),
  alarms: facts.alarms,
  raised: facts.raised
})

const encode = Schema.encodeSync(Schema.parseJson(Notification))

/** The exact bytes sent (and signed). */
export const bodyOf = (notification: Notification): string => encode(notification, { onExcessProperty: "error" })
