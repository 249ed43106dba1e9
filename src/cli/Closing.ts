/**
 * The closing lines of `payouts run` (issue 31, item 7): how the run ended, with the counts, and the
 * command that comes next. One first line states the outcome (finished, halted, paused, not paid,
 * refused, a person needed...); `Ledger:` follows when there is one.
 */
import { Option, Schema } from "effect"
import { describeAlreadyPaid } from "../output/AlreadyPaid.ts"
import type { Format } from "../output/Format.ts"
import { AlreadyPaid, CurrencyTotals, HaltNote } from "../output/SummaryFile.ts"
import type { RunResult } from "../run/RunRequest.ts"
import { FINAL_UNPAID_STATES, SETTLED_FAILURE_STATES } from "../store/RowState.ts"

/** What the closing reads of a summary: every field optional (a run refused early has few). */
const Closing = Schema.Struct({
  batch_id: Schema.optional(Schema.String),
  counts: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
  totals: Schema.optional(Schema.Record({ key: Schema.String, value: CurrencyTotals })),
  total_rows: Schema.optional(Schema.Number),
  already_paid: Schema.optional(AlreadyPaid),
  alarms: Schema.optional(Schema.Array(Schema.Unknown)),
  account_alarm: Schema.optional(Schema.String),
  paused: Schema.optional(Schema.String),
  halted: Schema.optional(HaltNote),
  errors: Schema.optional(Schema.Number),
  errors_file: Schema.optional(Schema.String),
  ledger: Schema.optional(Schema.String),
  outputs_error: Schema.optional(Schema.String),
  parent: Schema.optional(Schema.String)
})

/** A path or word as a shell reads it back: quoted when it holds anything but plain characters. */
export const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`)

/** The closing lines of a run of `file` (as the user wrote it) that ended with `result`. */
export const closingLines = (result: Pick<RunResult, "exitCode" | "outcome" | "summary">, file: string, format: Format): ReadonlyArray<string> => {
  const s = Option.getOrElse(Schema.decodeUnknownOption(Closing)(result.summary), () => Closing.make({}))
  const counts = s.counts ?? {}
  const n = (state: string) => counts[state] ?? 0
  const rows = (k: number) => `${format.count(k)} row${k === 1 ? "" : "s"}`
  const exit = `exit ${result.exitCode}`
  const batch = s.batch_id ?? "BATCH"
  const again = `payouts run ${shellWord(file)}`
  const retryOf = s.parent === undefined ? "" : ` (retry of batch ${s.parent})`
  const paidAmounts = Object.entries(s.totals ?? {})
    .filter(([, t]) => Number(t.completed_amount) > 0)
    .map(([currency, t]) => `${format.decimal(t.completed_amount)} ${currency}`)
  const paid = `paid ${format.count(n("completed"))}${paidAmounts.length === 0 ? "" : ` (${paidAmounts.join(", ")})`}`
  const notPaid = FINAL_UNPAID_STATES.filter((state) => n(state) > 0).map((state) => `${state} ${format.count(n(state))}`)
  const already = s.already_paid === undefined ? [] : [`${describeAlreadyPaid(s.already_paid, format.decimal)}.`]
  const left = n("validated")
  const inFlight = n("submitting") + n("submitted") + n("pending") + n("processing")
  const unknown = n("unknown")
  const ledger = s.ledger === undefined ? [] : [`Ledger:  ${s.ledger}`]
  const followed = [...(inFlight > 0 ? [`${format.count(inFlight)} pending`] : []), ...(unknown > 0 ? [`${format.count(unknown)} unknown`] : [])]
  const soFar = [`So far: ${[paid, ...notPaid, ...followed].join(", ")}.`]
  const wait = (k: number) => `${rows(k)} wait${k === 1 ? "s" : ""}`
  const lines = ((): ReadonlyArray<string> => {
    switch (result.outcome._tag) {
      case "Finished": {
        // What `payouts retry` pays again: the rows the service settled unpaid.
        const ended = SETTLED_FAILURE_STATES.filter((state) => n(state) > 0)
        const failedRows = ended.reduce((sum, state) => sum + n(state), 0)
        const how = ended.length < 2 ? ended.join("") : `${ended.slice(0, -1).join(", ")} or ${ended[ended.length - 1]}`
        return [
          `Finished (${exit})${retryOf}: ${[paid, ...notPaid].join(", ")}.`,
          ...already,
          ...(failedRows > 0 ? [`Pay again the ${rows(failedRows)} that ended ${how}: payouts retry ${batch}`] : [])
        ]
      }
      case "Refused": {
        switch (result.outcome.cause) {
          case "declined":
            return [`Not paid: you did not confirm; nothing was sent (${exit}). To pay it: ${again}`]
          case "invalid-file": {
            const errors = s.errors === undefined ? "the file has errors" : `${format.count(s.errors)} error${s.errors === 1 ? "" : "s"}`
            const where = s.errors_file === undefined ? "" : ` in ${s.errors_file}`
            return [`Not paid (${exit}): ${errors}${where}. Fix the file and run it again (payouts validate ${shellWord(file)} checks it first), or pay only the valid rows with --skip-invalid.`]
          }
          case "balance":
            return [`Not paid (${exit}): the wallet cannot cover the batch. Fund it (payouts wallet shows it) and run again: ${again}; or pay what fits with --on-insufficient partial.`]
          case "service":
            return [`Not paid (${exit}): ${result.outcome.message.replace(/^(refused|stopped): /, "")}; nothing was sent. Run again once it is fixed: ${again}`]
        }
        return [`Refused (${exit}): ${result.outcome.message}`]
      }
      case "Incomplete": {
        switch (result.outcome.reason) {
          case "halted":
            return [`Halted (${exit}): ${s.paused === undefined ? "" : `${s.paused}; `}${wait(left)}; payouts halt --lift --by NAME, then ${again}`, ...soFar, ...already]
          case "paused":
            return [`Paused (${exit}): ${s.paused ?? "paused"}; ${wait(left)}; payouts resume ${batch}, then ${again}`, ...soFar, ...already]
          case "declined":
            return [`Not paid: you did not confirm; nothing new was sent (${exit}). To go on: ${again}`, ...soFar]
          case "interrupted":
            return [`Interrupted (${exit}): ${wait(left)}; resume with ${again}`, ...soFar, ...already]
          case "stopped":
            return [`Stopped (${exit}): ${result.outcome.message.replace(/^stopped: /, "")}; ${wait(left)}; once fixed, resume with ${again}`, ...soFar, ...already]
          case "waiting":
            return [`Not finished (${exit}): ${[...followed, ...(left > 0 ? [`${format.count(left)} not sent`] : [])].join(", ") || "rows left"}; run again to follow them: ${again}`, ...soFar, ...already]
        }
        return [`Not finished (${exit}): ${result.outcome.message}; run again: ${again}`]
      }
      case "Attention": {
        const waiting = (s.alarms?.length ?? 0) + (s.account_alarm === undefined ? 0 : unknown)
        const who = waiting > 0 ? `${rows(waiting)} need${waiting === 1 ? "s" : ""} a person` : "A person must act"
        return [`${who} (${exit}): payouts resolve ${batch}`, ...soFar, ...already]
      }
      case "Failed":
        return s.outputs_error === undefined
          ? [`Failed (${exit}): ${result.outcome.message}. Fix it and run again: ${again}`]
          : [`Failed (${exit}): ${result.outcome.message}. Everything sent is in the state store; write the outputs again with: payouts ledger ${batch}`]
    }
  })()
  return [...lines, ...ledger]
}
