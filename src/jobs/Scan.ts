/**
 * A quick pass over a batch file before it runs: its currencies (one batch per currency wallet at a
 * time) and, for approval, rows, totals and fee estimates per currency.
 */
import { Effect, Stream } from "effect"
import { basename } from "node:path"
import { formatAmount } from "../domain/Money.ts"
import { estimateFee } from "../batch/Preflight.ts"
import { validateCsvFile } from "../batch/Validate.ts"

export interface CurrencyPlan {
  readonly rows: number
  readonly amount: string
  readonly fee_estimate: string
  readonly total: string
}

export interface FilePlan {
  readonly currencies: ReadonlyArray<string>
  readonly rows: number
  readonly invalid: number
  readonly byCurrency: Readonly<Record<string, CurrencyPlan>>
}

export const scanFile = (path: string, feePercent: number) =>
  Effect.gen(function* () {
    const sums = new Map<string, { rows: number; amount: number; fee: number }>()
    let rows = 0
    let invalid = 0
    yield* validateCsvFile(path, { fileName: basename(path), allowRepeats: true }).pipe(
      Stream.runForEach((row) =>
        Effect.sync(() => {
          rows += 1
          const currency = row._tag === "ValidRow" ? row.currency : (row.cells.currency ?? "").toUpperCase()
          if (row._tag === "RejectedRow") invalid += 1
          if (currency === "") return
          const s = sums.get(currency) ?? { rows: 0, amount: 0, fee: 0 }
          s.rows += 1
          if (row._tag === "ValidRow") {
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
    return { currencies: Object.keys(byCurrency), rows, invalid, byCurrency } satisfies FilePlan
  })
