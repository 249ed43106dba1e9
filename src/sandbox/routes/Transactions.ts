/** GET /v1/wallet/transactions: filters, 90-day window, newest first, pages with absolute links. */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { Pagination, PaginationLinks, TransactionsResponse, TransactionStatus, TransactionType } from "../../api/Schemas.js"
import { DAY } from "../Clock.js"
import type { SandboxContext } from "../Context.js"
import { faultOf } from "../Faults.js"
import { type FieldErrors, invalid, ok } from "../Http.js"
import type { Txn } from "../State.js"
import { transactionRecord } from "../Views.js"
import { HISTORY_DAYS } from "./Status.js"

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
  if (filters.type !== undefined && !Schema.is(TransactionType)(filters.type)) {
    errors.type = ["The type must be one of payin, payout, adjustment."]
  }
  if (filters.status !== undefined && !Schema.is(TransactionStatus)(filters.status)) {
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

const matches = (ctx: SandboxContext, q: Query, since: number, until: number) => (txn: Txn) => {
  const f = q.filters
  return (
    txn.createdAt >= since &&
    txn.createdAt <= until &&
    (f.wallet_id === undefined || ctx.state.wallets[txn.currency]?.id === f.wallet_id) &&
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

export const transactionRoutes = (ctx: SandboxContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/v1/wallet/transactions",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const url = new URL(request.url, `http://${request.headers.host ?? "127.0.0.1"}`)
        const parsed = parseQuery(url.searchParams)
        if (Either.isLeft(parsed)) return invalid(parsed.left)
        const q = parsed.right
        const now = yield* ctx.clock.now
        const lag = faultOf(ctx.faults.settings, "transactions", "list_lag") ?? 0
        const found = Object.values(ctx.state.transactions)
          .filter(matches(ctx, q, now - HISTORY_DAYS * DAY, now - lag))
          .sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq)
        const totalPages = Math.max(1, Math.ceil(found.length / q.limit))
        const rows = found.slice((q.page - 1) * q.limit, q.page * q.limit)
        const base = `${url.origin}${url.pathname}`
        const pagination = new Pagination({
          total: found.length,
          count: rows.length,
          per_page: q.limit,
          current_page: q.page,
          total_pages: totalPages,
          links: new PaginationLinks({
            next: q.page < totalPages ? pageLink(base, q, q.page + 1) : null,
            previous: q.page > 1 ? pageLink(base, q, Math.min(q.page - 1, totalPages)) : null
          })
        })
        const response = new TransactionsResponse({
          success: true,
          message: "Transactions retrieved successfully",
          data: { transactions: rows.map(transactionRecord), pagination }
        })
        return ok(Schema.encodeSync(TransactionsResponse)(response))
      })
    )
  )
