/**
 * The reconciliation decision (DESIGN.md section 7), kept pure so every branch is unit-tested:
 * given the rows whose POST outcome is unknown and one scan of the payout listing, decide for each
 * row whether to adopt a reference, raise an alarm, resend, or wait.
 */
import { fromWire } from "../domain/Money.ts"

export interface UnknownRow {
  readonly idx: number
  readonly token: string
  readonly amountMinor: number
  readonly currency: string
  /** When the intent was recorded, before the POST (epoch ms). */
  readonly intentAt: number
  /** When the row became unknown: its POST had certainly ended by then (epoch ms). */
  readonly unknownAt: number
  /** Scans before this one that found nothing for the row since it became unknown. */
  readonly emptyScans: number
}

export interface ListedPayout {
  readonly reference: string
  readonly description: string | null | undefined
  readonly amount: number
  readonly currency: string
  readonly status: string
  readonly fee?: number
}

/** One of our own rows whose payout has a known reference, with the time its intent was recorded. */
export interface KnownSubmission {
  readonly reference: string
  readonly intentAt: number
}

export type Decision =
  | { readonly _tag: "Adopt"; readonly idx: number; readonly payout: ListedPayout }
  | { readonly _tag: "Alarm"; readonly idx: number; readonly references: ReadonlyArray<string> }
  | { readonly _tag: "Resend"; readonly idx: number; readonly why: string }
  | { readonly _tag: "Wait"; readonly idx: number; readonly why: string }
  | { readonly _tag: "Expired"; readonly idx: number }

export interface PlanOptions {
  readonly now: number
  readonly graceMs: number
  readonly historyMs: number
}

export const HISTORY_MS = 90 * 24 * 60 * 60 * 1000

/** `[token]` at the very start: a server that truncates descriptions still keeps it. */
export const tokenPrefix = (token: string): string => `[${token}]`

export const describe = (token: string, description: string): string => `${tokenPrefix(token)} ${description}`

const tokenOf = (description: string | null | undefined): string | undefined => {
  if (description == null || !description.startsWith("[")) return undefined
  const end = description.indexOf("]")
  return end > 1 ? description.slice(1, end) : undefined
}

/** Indexes a listing by the token its description starts with. */
export const indexByToken = (listing: Iterable<ListedPayout>): Map<string, Array<ListedPayout>> => {
  const index = new Map<string, Array<ListedPayout>>()
  for (const payout of listing) {
    const token = tokenOf(payout.description)
    if (token === undefined) continue
    const bucket = index.get(token)
    if (bucket === undefined) index.set(token, [payout])
    else bucket.push(payout)
  }
  return index
}

export const plan = (
  rows: ReadonlyArray<UnknownRow>,
  listing: ReadonlyArray<ListedPayout>,
  known: ReadonlyArray<KnownSubmission>,
  options: PlanOptions
): ReadonlyArray<Decision> => {
  const index = indexByToken(listing)
  const visible = new Set(listing.map((p) => p.reference))
  // The listing has caught up with a row once a payout of ours whose intent came after the row's
  // POST had ended is visible: anything the service committed for the row is older than that one.
  const visibleIntents = known.filter((k) => visible.has(k.reference)).map((k) => k.intentAt)
  const latestVisibleIntent = visibleIntents.length === 0 ? -Infinity : Math.max(...visibleIntents)

  return rows.map((row): Decision => {
    const matches = (index.get(row.token) ?? []).filter(
      (p) => p.currency === row.currency && fromWire(p.amount, p.currency) === row.amountMinor
    )
    if (matches.length === 1) return { _tag: "Adopt", idx: row.idx, payout: matches[0] }
    if (matches.length > 1) return { _tag: "Alarm", idx: row.idx, references: matches.map((m) => m.reference) }
    if (options.now - row.intentAt > options.historyMs) return { _tag: "Expired", idx: row.idx }
    if (latestVisibleIntent > row.unknownAt) {
      return { _tag: "Resend", idx: row.idx, why: "a later payout of ours is listed and this one is not" }
    }
    if (options.now - row.intentAt >= options.graceMs && row.emptyScans >= 1) {
      return { _tag: "Resend", idx: row.idx, why: "not listed after the reconcile grace and a second scan" }
    }
    return { _tag: "Wait", idx: row.idx, why: "the listing may lag behind" }
  })
}

/** from_date of the scan: the earliest intent's UTC day minus one (YYYY-MM-DD). */
export const scanFromDate = (earliestIntentAt: number): string =>
  new Date(earliestIntentAt - 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
