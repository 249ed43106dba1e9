/** The exit-code table of DESIGN.md section 9, from the row counts at the end of a run. */
import { FINAL_UNPAID_STATES } from "../store/RowState.ts"

export const EXIT_OK = 0
export const EXIT_FINISHED_WITH_FAILURES = 1
export const EXIT_REFUSED = 2
export const EXIT_INCOMPLETE = 3
export const EXIT_INTERNAL = 4
/** A person must act (an alarm): `payouts resolve` shows what and why. */
export const EXIT_ATTENTION = 5

export const exitCodeFor = (counts: Readonly<Record<string, number>>, interrupted: boolean): number => {
  const total = Object.values(counts).reduce((a, b) => a + b, 0)
  const completed = counts["completed"] ?? 0
  const finalOther = FINAL_UNPAID_STATES.reduce((sum, s) => sum + (counts[s] ?? 0), 0)
  if (interrupted || completed + finalOther < total) return EXIT_INCOMPLETE
  return finalOther === 0 ? EXIT_OK : EXIT_FINISHED_WITH_FAILURES
}
