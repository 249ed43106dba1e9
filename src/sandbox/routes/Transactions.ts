/**
 * GET /v1/wallet/transactions: filters, 90-day window, newest first, pages with absolute links.
 * The listing faults (list_lag, list_jitter, list_order, pages_lie, desc_mangle) shape only what this
 * endpoint shows; status lookups and the admin views see the truth.
 */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Either, HashMap, Ref, Schema } from "effect"
import { type TransactionsResponse, TransactionStatus, TransactionType } from "../../api/Schemas.ts"
import { DAY } from "../Clock.ts"
import { SandboxContext } from "../Context.ts"
import { type DescMangle, type EndpointFaults, faultOf, type ListOrder, type PagesLie } from "../FaultSettings.ts"
import { seededUnit } from "../SeededUnit.ts"
import { type Answer, answerOk, type FieldErrors, invalidAnswer, jsonOf, toResponse } from "../Http.ts"
import type { SandboxState, Txn } from "../State.ts"
import { transactionView } from "../Views.ts"
import { claimedTotals } from "../AnswerFaults.ts"
import { HISTORY_DAYS } from "./Status.ts"

// Compiled once, not per request.
const isType = Schema.is(TransactionType)
const isStatus = Schema.is(TransactionStatus)

const FILTERS = ["wallet_id", "currency", "type", "status", "from_date", "to_date"] as const
type Filters = Partial<Record<(typeof FILTERS)[number], string>>

interface Query {
  readonly filters: Filters
  readonly page: number
  readonly limit: number
  readonly from: number | undefined
  readonly to: number | undefined
}

const dayStart = (field: string, value: string, errors: FieldErrors): number | undefined => {
  const millis = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN
  if (Number.isNaN(millis) || new Date(millis).toISOString().slice(0, 10) !== value) {
    errors[field] = [`The ${field} does not match the format YYYY-MM-DD.`]
    return undefined
  }
  return millis
}

const positive = (field: string, value: string | undefined, fallback: number, max: number, errors: FieldErrors) => {
  if (value === undefined) return fallback
  const n = /^\d+$/.test(value) ? Number(value) : NaN
  if (!(n >= 1)) errors[field] = [`The ${field} must be an integer of at least 1.`]
  else if (n > max) errors[field] = [`The ${field} may not be greater than ${max}.`]
  return n
}

const parseQuery = (params: URLSearchParams): Either.Either<Query, FieldErrors> => {
  const errors: FieldErrors = {}
  const filters: Filters = {}
  for (const key of FILTERS) {
    const value = params.get(key)?.trim()
    if (value !== undefined && value !== "") filters[key] = value
  }
  if (filters.type !== undefined && !isType(filters.type)) {
    errors.type = ["The type must be one of payin, payout, adjustment."]
  }
  if (filters.status !== undefined && !isStatus(filters.status)) {
    errors.status = [`The status must be one of ${TransactionStatus.literals.join(", ")}.`]
  }
  const from = filters.from_date === undefined ? undefined : dayStart("from_date", filters.from_date, errors)
  const to = filters.to_date === undefined ? undefined : dayStart("to_date", filters.to_date, errors)
  if (from !== undefined && to !== undefined && to < from) errors.to_date = ["The to_date must be a date after or equal to from_date."]
  const page = positive("page", params.get("page") ?? undefined, 1, Number.MAX_SAFE_INTEGER, errors)
  const limit = positive("limit", params.get("limit") ?? undefined, 20, 100, errors)
  if (Object.keys(errors).length > 0) return Either.left(errors)
  return Either.right({ filters, page, limit, from, to: to === undefined ? undefined : to + DAY })
}

const matches = (state: SandboxState, q: Query, since: number) => (txn: Txn) => {
  const f = q.filters
  return (
    txn.createdAt >= since &&
    (f.wallet_id === undefined || state.wallets[txn.currency]?.id === f.wallet_id) &&
    (f.currency === undefined || txn.currency === f.currency.toUpperCase()) &&
    (f.type === undefined || txn.type === f.type) &&
    (f.status === undefined || txn.status === f.status) &&
    (q.from === undefined || txn.createdAt >= q.from) &&
    (q.to === undefined || txn.createdAt < q.to)
  )
}

const pageLink = (base: string, q: Query, page: number) => {
  const params = new URLSearchParams()
  for (const key of FILTERS) if (q.filters[key] !== undefined) params.set(key, q.filters[key]!)
  params.set("page", String(page))
  params.set("limit", String(q.limit))
  return `${base}?${params.toString()}`
}

/** When a transaction shows in listings: after list_lag plus its own jitter (fixed by seed and seq). */
const visibleAt = (seed: number, lag: number, jitter: EndpointFaults["list_jitter"]) => (txn: Txn): number =>
  txn.createdAt + lag + (jitter === undefined ? 0 : Math.round(jitter.min + seededUnit(seed, "list_jitter", txn.seq) * (jitter.max - jitter.min)))

const newestFirst = (a: Txn, b: Txn) => b.createdAt - a.createdAt || b.seq - a.seq

/** `shuffle`: each transaction's place is fixed by seed and seq, so the same rows always come in the same order. */
const ordered = (rows: Array<Txn>, order: ListOrder | undefined, seed: number): Array<Txn> => {
  switch (order) {
    case "oldest":
      return rows.sort((a, b) => -newestFirst(a, b))
    case "shuffle":
      return rows
        .map((txn) => ({ txn, key: seededUnit(seed, "list_order", txn.seq) }))
        .sort((a, b) => a.key - b.key || a.txn.seq - b.txn.seq)
        .map(({ txn }) => txn)
    default:
      return rows.sort(newestFirst)
  }
}

interface PageView {
  readonly rows: ReadonlyArray<Txn>
  readonly totalPages: number
  readonly next: number | undefined
  readonly previous: number | undefined
}

/**
 * One page of `found`, honest or as pages_lie has it. `one`: total_pages 1 and no next link, though
 * later pages still answer. `emptymid`: an empty page 2 inserted (later pages shift by one and
 * total_pages counts it). `dupref`: page p >= 2 starts with the last row of page p - 1, so rows shift
 * by one per page while total_pages still comes from the total (needs limit >= 2).
 */
const pageOf = (found: ReadonlyArray<Txn>, page: number, limit: number, lie: PagesLie | undefined): PageView => {
  const honestPages = Math.max(1, Math.ceil(found.length / limit))
  const slice = (start: number) => found.slice(start, start + limit)
  const linked = (rows: ReadonlyArray<Txn>, totalPages: number): PageView => ({
    rows,
    totalPages,
    next: page < totalPages ? page + 1 : undefined,
    previous: page > 1 ? Math.min(page - 1, totalPages) : undefined
  })
  switch (lie) {
    case "one":
      return { ...linked(slice((page - 1) * limit), honestPages), totalPages: 1, next: undefined }
    case "emptymid":
      if (honestPages < 2) break
      return linked(page === 2 ? [] : slice((page === 1 ? 0 : page - 2) * limit), honestPages + 1)
    case "dupref":
      if (limit < 2) break
      return linked(slice((page - 1) * (limit - 1)), honestPages)
  }
  return linked(slice((page - 1) * limit), honestPages)
}

const mangled = (mangle: DescMangle | undefined) => (txn: Txn): Txn => {
  if (mangle === undefined) return txn
  const description =
    mangle.kind === "cut"
      ? txn.description.slice(0, mangle.length)
      : mangle.kind === "strip"
        ? txn.description.replace(/^\[[^\]]*\] ?/, "")
        : txn.description.toUpperCase()
  return { ...txn, description }
}

export const transactionsAnswer = (url: URL, now: number): Effect.Effect<Answer, never, SandboxContext> =>
  Effect.gen(function* () {
    const parsed = parseQuery(url.searchParams)
    if (Either.isLeft(parsed)) return invalidAnswer(parsed.left)
    const q = parsed.right
    const ctx = yield* SandboxContext
    const faults = yield* Ref.get(ctx.faults)
    const state = yield* Ref.get(ctx.state)
    const settings = faults.settings
    const seed = faults.seed
    const own = settings.endpoints.transactions ?? {}
    const lag = faultOf(settings, "transactions", "list_lag") ?? 0
    const shown = visibleAt(seed, lag, own.list_jitter)
    const found = ordered(
      Array.from(HashMap.values(state.transactions)).filter((txn) => matches(state, q, now - HISTORY_DAYS * DAY)(txn) && shown(txn) <= now),
      own.list_order,
      seed
    )
    const view = pageOf(found, q.page, q.limit, own.pages_lie)
    const claimed = yield* claimedTotals(ctx.faults, faults, found.length, view.totalPages, q.limit)
    const next = view.next ?? (q.page < claimed.totalPages ? q.page + 1 : undefined)
    const base = `${url.origin}${url.pathname}`
    return answerOk(
      jsonOf<typeof TransactionsResponse.Encoded>({
        success: true,
        message: "Transactions retrieved successfully",
        data: {
          transactions: view.rows.map(mangled(own.desc_mangle)).map(transactionView),
          pagination: {
            total: claimed.total,
            count: view.rows.length,
            per_page: q.limit,
            current_page: q.page,
            total_pages: claimed.totalPages,
            links: {
              next: next === undefined ? null : pageLink(base, q, next),
              previous: view.previous === undefined ? null : pageLink(base, q, view.previous)
            }
          }
        }
      })
    )
  })

export const transactionRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/v1/wallet/transactions",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, `http://${request.headers.host ?? "127.0.0.1"}`)
      const { clock } = yield* SandboxContext
      return toResponse(yield* transactionsAnswer(url, yield* clock.now))
    })
  )
)
