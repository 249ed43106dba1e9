/**
 * A quick pass over a batch file before it runs: its currencies (one batch per currency wallet at a
 * time) and, for approval, rows, totals and fee estimates per currency.
 */
import { Effect, Stream } from "effect"
import { basename } from "node:path"
import { formatAmount } from "../domain/Money.ts"
import { estimateFee } from "../domain/FeeEstimate.ts"
import { SharedPhones } from "../intake/SharedPhones.ts"
import { validateCsvFile } from "../intake/Validate.ts"

export interface CurrencyPlan {
  readonly rows: number
  readonly amount: string
  readonly fee_estimate: string
  readonly total: string
}

/** What an approval binds besides the batch id: the rows that would be paid and their amount, per currency. */
export interface ControlTotals {
  readonly rows: number
  readonly currencies: Readonly<Record<string, { readonly rows: number; readonly amount: string }>>
}

export interface FilePlan {
  readonly currencies: ReadonlyArray<string>
  readonly rows: number
  readonly invalid: number
  readonly byCurrency: Readonly<Record<string, CurrencyPlan>>
  readonly control: ControlTotals
}

/** Adds up the rows that would be paid, one at a time (a big file is never held in memory). */
export const controlTally = () => {
  const sums = new Map<string, { rows: number; amount: number }>()
  let count = 0
  return {
    add: (currency: string, amountMinor: number) => {
      count += 1
      const s = sums.get(currency) ?? { rows: 0, amount: 0 }
      s.rows += 1
      s.amount += amountMinor
      sums.set(currency, s)
    },
    totals: (): ControlTotals => ({
      rows: count,
      currencies: Object.fromEntries(
        [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, s]) => [c, { rows: s.rows, amount: formatAmount(s.amount, c) }])
      )
    })
  }
}

/** Where two control totals differ, in words; None when they are the same. */
export const controlDifference = (approved: ControlTotals, now: ControlTotals): string | undefined => {
  const describe = (t: ControlTotals) =>
    `${t.rows} rows${Object.entries(t.currencies).map(([c, v]) => `, ${c} ${v.rows} rows ${v.amount}`).join("")}`
  const same =
    approved.rows === now.rows &&
    Object.keys(approved.currencies).length === Object.keys(now.currencies).length &&
    Object.entries(approved.currencies).every(([c, v]) => now.currencies[c]?.rows === v.rows && now.currencies[c]?.amount === v.amount)
  return same ? undefined : `approved ${describe(approved)}; now ${describe(now)}`
}

/** The fee rule as the preflight takes it. */
export type FeeRule = Parameters<typeof estimateFee>[1]

export const scanFile = (path: string, feePercent: FeeRule) =>
  Effect.gen(function* () {
    const sums = new Map<string, { rows: number; amount: number; fee: number }>()
    let rows = 0
    let invalid = 0
    const valid = controlTally()
    // Every row a run may pay is counted: repeats and shared phones too (the run refuses them, or not, by its options).
    yield* validateCsvFile(path, { fileName: basename(path), allowRepeats: true, sharedPhones: new SharedPhones(true) }).pipe(
      Stream.runForEach((row) =>
        Effect.sync(() => {
          rows += 1
          const currency = row._tag === "ValidRow" ? row.currency : (row.cells.currency ?? "").toUpperCase()
          if (row._tag === "RejectedRow") invalid += 1
          if (currency === "") return
          const s = sums.get(currency) ?? { rows: 0, amount: 0, fee: 0 }
          s.rows += 1
          if (row._tag === "ValidRow") {
            valid.add(currency, row.amountMinor)
            s.amount += row.amountMinor
            s.fee += estimateFee(row.amountMinor, feePercent)
          }
          sums.set(currency, s)
        })
      ),
      Effect.catchAll(() => Effect.void)
    )
    const byCurrency = Object.fromEntries(
      [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, s]): [string, CurrencyPlan] => [
        c,
        { rows: s.rows, amount: formatAmount(s.amount, c), fee_estimate: formatAmount(s.fee, c), total: formatAmount(s.amount + s.fee, c) }
      ])
    )
    return { currencies: Object.keys(byCurrency), rows, invalid, byCurrency, control: valid.totals() } satisfies FilePlan
  })
