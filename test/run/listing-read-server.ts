/**
 * A fake listing for one UTC day, legal but unkind (DESIGN 7, "The listing mirror"): rows in any
 * order, references repeated within and across pages, empty or short pages in the middle, a wrong
 * `total_pages`, and `pagination.total` over-reported, or under-reported on any page but the first.
 *
 * The first page, which every read fetches, never under-reports: DESIGN 7 takes `total` as the one
 * lower bound of a day ("distinct references >= every pagination.total seen"). A service whose every
 * total is under the truth can end a read on an empty page and hide rows from any client (see the
 * limit test in listing-read.test.ts).
 */
import { Effect } from "effect"
import fc from "fast-check"
import type { TransactionsPage } from "../../src/api/ClientApi.ts"
import { Pagination, WalletTransaction } from "../../src/api/Schemas.ts"
import { Reference } from "../../src/domain/Ids.ts"

export interface ListedRow {
  readonly reference: string
  readonly description: string | null
  readonly amountMinor: number
  readonly currency: string
  readonly createdAt: string
}

/** Which lies a read meets; the page layout itself comes from `seed`. */
export interface Lies {
  readonly seed: number
  /** Any order, else newest first (the order rows were given in). */
  readonly shuffle: boolean
  /** Copies of rows inserted anywhere, so references repeat within and across pages. */
  readonly repeats: boolean
  /** Empty pages inserted before the last row. */
  readonly emptyPages: boolean
  /** Short non-empty pages before the last row. */
  readonly shortPages: boolean
  /** `total` above the truth on some pages (the first one included). */
  readonly overTotal: boolean
  /** `total` under the truth on some pages after the first. */
  readonly underTotal: boolean
  /** `total_pages` (never used by the client) is any number. */
  readonly wrongTotalPages: boolean
}

export const honest: Lies = {
  seed: 1,
  shuffle: false,
  repeats: false,
  emptyPages: false,
  shortPages: false,
  overTotal: false,
  underTotal: false,
  wrongTotalPages: false
}

export const arbLies: fc.Arbitrary<Lies> = fc.record({
  seed: fc.integer(),
  shuffle: fc.boolean(),
  repeats: fc.boolean(),
  emptyPages: fc.boolean(),
  shortPages: fc.boolean(),
  overTotal: fc.boolean(),
  underTotal: fc.boolean(),
  wrongTotalPages: fc.boolean()
})

/** mulberry32: a small seeded generator, so a failing case replays exactly. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return { next, int, chance: (p: number) => next() < p }
}

const transaction = (row: ListedRow) =>
  new WalletTransaction(
    {
    id: `id-${row.reference}`,
    reference: Reference.make(row.reference),
    type: "payout",
    amount: row.amountMinor,
    fee: 0,
    net_amount: row.amountMinor,
    currency: row.currency,
    status: "pending",
    description: row.description,
    created_at: row.createdAt
    },
    { disableValidation: true }
  )

/**
 * The pages the service will answer for these distinct rows (what it holds for the day at the time of
 * the read), laid out with the lies; every page past them is empty.
 */
export const layout = (rows: ReadonlyArray<ListedRow>, lies: Lies, limit: number) => {
  const rand = prng(lies.seed)
  const seq = [...rows]
  if (lies.shuffle) {
    for (let i = seq.length - 1; i > 0; i--) {
      const j = rand.int(0, i)
      ;[seq[i], seq[j]] = [seq[j], seq[i]]
    }
  }
  if (lies.repeats && rows.length > 0) {
    const copies = rand.int(1, rows.length + 1)
    for (let c = 0; c < copies; c++) seq.splice(rand.int(0, seq.length), 0, seq[rand.int(0, seq.length - 1)])
  }
  const pages: Array<ReadonlyArray<ListedRow>> = []
  for (let i = 0; i < seq.length;) {
    if (lies.emptyPages && rand.chance(0.25)) {
      pages.push([])
      continue
    }
    const size = lies.shortPages && rand.chance(0.3) ? rand.int(1, limit) : limit
    pages.push(seq.slice(i, i + size))
    i += size
  }
  const truth = rows.length
  const totals = pages.map((_, i) => {
    if (lies.overTotal && rand.chance(0.3)) return truth + rand.int(1, 3)
    if (i > 0 && lies.underTotal && rand.chance(0.5)) return rand.int(0, Math.max(0, truth - 1))
    return truth
  })
  const totalPages = lies.wrongTotalPages ? rand.int(0, 5) : Math.max(1, Math.ceil(truth / limit))
  const lateTotal = lies.underTotal ? 0 : lies.overTotal && rand.chance(0.3) ? truth + 1 : truth
  return { pages, totals: totals.length === 0 ? [lies.overTotal && rand.chance(0.3) ? truth + 1 : truth] : totals, totalPages, lateTotal }
}

/** `fetch(page)` for ListingMirror.readDay over that layout; counts the pages asked. */
export const fakeFetch = (rows: ReadonlyArray<ListedRow>, lies: Lies, limit: number) => {
  const { pages, totals, totalPages, lateTotal } = layout(rows, lies, limit)
  const built = new Map(rows.map((r) => [r, transaction(r)]))
  const asked: Array<number> = []
  const fetch = (page: number) =>
    Effect.sync((): TransactionsPage => {
      asked.push(page)
      const shown = pages[page - 1] ?? []
      return {
        transactions: shown.map((r) => built.get(r) ?? transaction(r)),
        pagination: new Pagination({
          total: page <= totals.length ? totals[page - 1] : lateTotal,
          count: shown.length,
          per_page: limit,
          current_page: page,
          total_pages: totalPages
        }, { disableValidation: true })
      }
    })
  return { fetch, asked, pages }
}
