/**
 * Rows of a batch that were paid, but not by this batch's run (issue 31, item 3): a summary counts
 * them apart (`already_paid`) so that no figure of it counts another's payment as its own, and
 * summing the summaries of `done/` counts each payment once. A row is already paid by another when
 * its payout went through (completed or refunded) and either
 *  - this batch never sent it (no attempt, yet a reference): its payout was found in the service's
 *    listing and adopted (the pre-scan, or a person's `resolve --adopt` of a row never sent), made
 *    outside this state store (another store, install or working directory); or
 *  - the batch was already done when this run started: the same content run again (a copy under
 *    another name dropped into `watch`, `run` of a copy), whose rows its earlier run paid.
 */
import { DateTime, Effect, Stream } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { estimateFee, type FeeEstimate } from "../domain/FeeEstimate.ts"
import { formatAmount, minorDigits } from "../domain/Money.ts"
import type { Row } from "../store/Model.ts"
import { PAID_OUT_STATES } from "../store/RowState.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import type { AlreadyPaid, Summary } from "./SummaryFile.ts"

/** The batch was done before this run: its earlier run paid every paid row. */
export interface EarlierRun {
  readonly batchId: string
  /** The file the batch was first loaded from. */
  readonly file: string
}

interface CurrencyFigures {
  rows: number
  amountMinor: number
  completedMinor: number
  feesMinor: number
  estimatedMinor: number
}

/** Whether `row` is already paid by another (see above); `earlier` when the batch was done before this run. */
export const isAlreadyPaid = (row: Row, earlier: EarlierRun | undefined): boolean =>
  PAID_OUT_STATES.includes(row.state) && (earlier !== undefined || (row.attempts === 0 && row.reference !== null))

const day = (at: DateTime.Utc) => DateTime.formatIso(at).slice(0, 10)

/** Gathers the already-paid rows one row at a time (fed by the ledger's pass over the batch). */
export const makeAlreadyPaidTally = (earlier: EarlierRun | undefined, feeRule: FeeEstimate) => {
  const byCurrency = new Map<string, CurrencyFigures>()
  const byState = new Map<string, number>()
  let rows = 0
  let listed = 0
  let first: string | undefined
  let last: string | undefined
  const seen = (d: string) => {
    if (first === undefined || d < first) first = d
    if (last === undefined || d > last) last = d
  }
  // An adopted payout was made when the listing shows it, not when this store adopted it.
  const listedRefs: Array<string> = []
  const add = (row: Row): void => {
    if (!isAlreadyPaid(row, earlier) || row.amountMinor === null) return
    rows++
    if (row.attempts === 0 && row.reference !== null) {
      listed++
      listedRefs.push(row.reference)
    }
    byState.set(row.state, (byState.get(row.state) ?? 0) + 1)
    const c = byCurrency.get(row.currency) ?? { rows: 0, amountMinor: 0, completedMinor: 0, feesMinor: 0, estimatedMinor: 0 }
    c.rows++
    c.amountMinor += row.amountMinor
    if (row.state === "completed") c.completedMinor += row.amountMinor
    c.feesMinor += row.feeMinor ?? 0
    c.estimatedMinor += estimateFee(row.amountMinor, feeRule)
    byCurrency.set(row.currency, c)
    const paidOn = row.finalAt ?? row.submittedAt
    if (row.attempts > 0 && paidOn !== null) seen(day(paidOn))
  }
  /** The figures, with the listing days of the adopted payouts read from the mirror. */
  const result = (accountId: AccountId) =>
    Effect.gen(function* () {
      if (listedRefs.length > 0) {
        const listedPayouts = yield* (yield* MirrorStore).mirrorByReferences(accountId, listedRefs)
        for (const p of listedPayouts) seen(p.day)
      }
      return { rows, listed, byState, byCurrency, first, last, earlier } satisfies AlreadyPaidFigures
    })
  return { add, result }
}

export type AlreadyPaidTally = ReturnType<typeof makeAlreadyPaidTally>

export interface AlreadyPaidFigures {
  readonly rows: number
  /** Of them, adopted from the service's listing (never sent by this batch). */
  readonly listed: number
  readonly byState: ReadonlyMap<string, number>
  readonly byCurrency: ReadonlyMap<string, CurrencyFigures>
  /** The days their payouts were final (as this store recorded them). */
  readonly first: string | undefined
  readonly last: string | undefined
  readonly earlier: EarlierRun | undefined
}

/** "on 2026-11-27", or "between 2026-11-25 and 2026-11-27". */
export const paidOn = (f: Pick<AlreadyPaidFigures, "first" | "last">): string =>
  f.first === undefined ? "" : f.first === f.last || f.last === undefined ? `on ${f.first}` : `between ${f.first} and ${f.last}`

/** A decimal of the summary ("15000", "12.50") back to minor units. */
const minorOf = (text: string | undefined, currency: string): number =>
  text === undefined ? 0 : Math.round(Number(text) * 10 ** minorDigits(currency))

/** The summary's `already_paid` field. */
export const alreadyPaidField = (f: AlreadyPaidFigures): AlreadyPaid => ({
  rows: f.rows,
  totals: Object.fromEntries(
    [...f.byCurrency].map(([currency, c]) => [currency, { rows: c.rows, amount: formatAmount(c.amountMinor, currency), fees: formatAmount(c.feesMinor, currency) }])
  ),
  ...(f.listed > 0 ? { listed: f.listed } : {}),
  ...(f.first === undefined ? {} : { first_day: f.first, last_day: f.last ?? f.first }),
  ...(f.earlier === undefined ? {} : { earlier_run: { batch_id: f.earlier.batchId, file: f.earlier.file } })
})

/**
 * The summary with the already-paid rows taken out of its counts (counted under `already_paid`
 * instead of their state) and out of its totals, and listed apart in `already_paid`. Unchanged when
 * there are none.
 */
export const withAlreadyPaid = (summary: Summary, f: AlreadyPaidFigures): Summary => {
  if (f.rows === 0) return summary
  const counts: Record<string, number> = { ...summary.counts }
  for (const [state, n] of f.byState) {
    const left = (counts[state] ?? 0) - n
    if (left > 0) counts[state] = left
    else delete counts[state]
  }
  counts["already_paid"] = f.rows
  const totals = { ...summary.totals }
  for (const [currency, c] of f.byCurrency) {
    const t = totals[currency]
    if (t === undefined) continue
    const less = (text: string | undefined, minor: number) => formatAmount(Math.max(0, minorOf(text, currency) - minor), currency)
    totals[currency] = {
      rows: Math.max(0, t.rows - c.rows),
      amount: less(t.amount, c.amountMinor),
      completed_amount: less(t.completed_amount, c.completedMinor),
      fees: less(t.fees, c.feesMinor),
      ...(t.fees_estimated === undefined ? {} : { fees_estimated: less(t.fees_estimated, c.estimatedMinor) })
    }
  }
  return { ...summary, counts, totals, already_paid: alreadyPaidField(f) }
}

/**
 * One sentence for a person: "3 row(s) (15,000 XAF) already paid by batch B (week49.csv) on
 * 2026-11-27: not paid again". `decimal` puts the locale's separators into a plain decimal.
 */
export const describeAlreadyPaid = (a: AlreadyPaid, decimal: (text: string) => string = (t) => t): string => {
  const amounts = Object.entries(a.totals).map(([currency, t]) => `${decimal(t.amount)} ${currency}`).join(", ")
  const when = paidOn({ first: a.first_day, last: a.last_day })
  const rows = `${a.rows} row(s)${amounts === "" ? "" : ` (${amounts})`}`
  if (a.earlier_run !== undefined) {
    return `${rows} already paid by batch ${a.earlier_run.batch_id} (${a.earlier_run.file})${when === "" ? "" : ` ${when}`}: not paid again`
  }
  return `${rows} already paid outside this state store (their payouts are in the service's listing${when === "" ? "" : `, made ${when}`}): adopted, not paid again`
}

/** The figures from a pass of their own over the batch's paid rows (when no ledger pass gathers them). */
export const alreadyPaidOf = (accountId: AccountId, batchId: BatchId, earlier: EarlierRun | undefined, feeRule: FeeEstimate) =>
  Effect.gen(function* () {
    const tally = makeAlreadyPaidTally(earlier, feeRule)
    yield* Stream.runForEach((yield* Rows).streamRowsInStates(accountId, batchId, PAID_OUT_STATES), (row) => Effect.sync(() => tally.add(row)))
    return yield* tally.result(accountId)
  })
