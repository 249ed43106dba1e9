/**
 * The typed client of the payment API v1. Responses are classified as DESIGN.md section 3 reads
 * them (see Classify.ts); GETs retry transient failures, POSTs never retry on their own.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Chunk, Clock, Effect, Either, Option, ParseResult, Redacted, Ref, Schedule, Schema, Stream } from "effect"
import { classify, type Endpoint, EXCERPT_LENGTH, makeScrub, type Transient } from "./Classify.ts"
import { checkBalance } from "./Plausible.ts"
import { PaymentClientConfig } from "./ClientConfig.ts"
import { type ClientError, NotSent, RateLimited, Unavailable, UnexpectedResponse } from "./Errors.ts"
import { RequestGate } from "./RequestGate.ts"
import { parseRetryAfter } from "./RetryAfter.ts"
import {
  CardPayinRequest,
  CardPayinResponse,
  MobileMoneyPayinRequest,
  MobileMoneyPayinResponse,
  PayoutRequest,
  PayoutResponse,
  StatusRecord,
  StatusResponse,
  SummaryResponse,
  TransactionsResponse,
  WalletsResponse,
  type WalletTransaction
} from "./Schemas.ts"
import { FENCED, type PaymentClientApi, type TransactionFilters, type TransactionsPage } from "./ClientApi.ts"
import { Exchange, PAGE_MAX_BYTES, RECORD_MAX_BYTES, sendOf } from "./Exchange.ts"
import { failureWithoutAnswer } from "./Transport.ts"
import { retryLazily } from "./LazyRetry.ts"
import { makeServiceClock } from "./ServiceClock.ts"
import { quickPayoutResponse, quickStatusResponse } from "./QuickDecode.ts"
import { quickPayoutBody } from "./QuickEncode.ts"

export type { PaymentClientApi, TransactionFilters, TransactionsPage } from "./ClientApi.ts"
export { FENCED } from "./ClientApi.ts"

const decoder = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownOption(schema)

/** The quick check first (QuickDecode.ts), the schema when it is not sure. */
const quickly = <A>(quick: (json: unknown) => A | undefined, decode: (json: unknown) => Option.Option<A>) => (json: unknown) => {
  const value = quick(json)
  return value === undefined ? decode(json) : Option.some(value)
}

const encoder = <A, I>(schema: Schema.Schema<A, I>) => (body: A) =>
  Schema.encode(schema)(body).pipe(
    Effect.mapError((e) => new NotSent({ reason: `invalid request body: ${ParseResult.TreeFormatter.formatErrorSync(e)}` }))
  )

/** The quick encode first (QuickEncode.ts), the schema's when it is not sure. */
const quickEncoder = <A, I>(quick: (body: A) => I | undefined, encode: (body: A) => Effect.Effect<I, NotSent>) => (body: A) => {
  const value = quick(body)
  return value === undefined ? encode(body) : Effect.succeed(value)
}

const queryOf = (filters: TransactionFilters): Record<string, string> =>
  Object.fromEntries(
    Object.entries(filters).filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => [k, String(v)])
  )

const finalOf = (t: Transient): ClientError =>
  t.rateLimited
    ? new RateLimited({ retryAfterMs: t.retryAfterMs })
    : t.notSent
    ? new NotSent({ reason: t.reason })
    : new Unavailable({ reason: t.reason, status: t.status })

export const make = Effect.gen(function*() {
  const settings = yield* PaymentClientConfig
  const gate = yield* RequestGate
  // No span per request and no trace headers sent to the service: nothing here exports traces, and the
  // span alone was a fifth of a request's CPU (scripts/bench/hotpath.ts).
  const http = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerDisabledWhen(() => true), HttpClient.withTracerPropagation(false))
  // UndiciExchange.layer (Connect.ts) provides a cheaper path for the same requests; any HttpClient works without it.
  const send = sendOf(http, yield* Effect.serviceOption(Exchange))
  const base = settings.baseUrl
  const baseUrl = new URL(URL.canParse(base) ? base : "http://invalid.invalid")
  const scrub = makeScrub([Redacted.value(settings.apiKey), Redacted.value(settings.apiSecret)])
  const headers = {
    accept: "application/json",
    "x-api-key": Redacted.value(settings.apiKey),
    "x-api-secret": Redacted.value(settings.apiSecret)
  }
  const retrySchedule = Schedule.exponential(settings.getRetry.base).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(settings.getRetry.times)),
    Schedule.upTo(settings.getRetry.maxElapsed)
  )

  const skew = yield* Ref.make(Option.none<number>())
  // A sandbox's declared clock, believed only from this machine (ServiceClock.ts).
  const declared = makeServiceClock(baseUrl)

  const attempt = <A>(
    method: "GET" | "POST",
    endpoint: Endpoint,
    request: HttpClientRequest.HttpClientRequest,
    success: (json: unknown) => Option.Option<A>,
    reference?: string,
    mayStillSend?: Effect.Effect<boolean>
  ): Effect.Effect<A, ClientError | Transient> =>
    Effect.gen(function*() {
      if (mayStillSend === undefined) yield* gate.take
      else if (!(yield* gate.takeChecked(mayStillSend))) return yield* new NotSent({ reason: FENCED })
      const maxBytes = endpoint === "transactions" ? PAGE_MAX_BYTES : RECORD_MAX_BYTES
      const answer = yield* Effect.mapError(send(request, settings.requestTimeout, maxBytes), (error) => failureWithoutAnswer(method, error))
      const nowMs = yield* Clock.currentTimeMillis
      const served = answer.date === undefined ? NaN : Date.parse(answer.date)
      // Date has whole seconds: the skew is known to within one second, which the one-minute rule allows.
      if (Number.isFinite(served)) yield* Ref.set(skew, Option.some(served - nowMs))
      declared.observe(nowMs, served, answer.clock)
      if (answer.status === 429) {
        yield* gate.onRateLimited(Option.getOrUndefined(parseRetryAfter(answer.retryAfter, nowMs)))
      } else {
        yield* gate.onSuccess
      }
      return yield* classify({ method, endpoint, success, nowMs, scrub, reference }, answer)
    })

  const getJson = <A>(
    endpoint: Endpoint,
    request: HttpClientRequest.HttpClientRequest,
    success: (json: unknown) => Option.Option<A>,
    reference?: string
  ): Effect.Effect<A, ClientError> =>
    attempt("GET", endpoint, HttpClientRequest.setHeaders(request, headers), success, reference).pipe(
      (call) => retryLazily(call, { schedule: retrySchedule, while: (e) => e._tag === "Transient" }),
      Effect.catchIf((e): e is Transient => e._tag === "Transient", (t) => Effect.fail(finalOf(t)))
    )

  const postJson = <A>(
    endpoint: Endpoint,
    path: string,
    body: unknown,
    success: (json: unknown) => Option.Option<A>,
    mayStillSend?: Effect.Effect<boolean>
  ): Effect.Effect<A, ClientError> => {
    const request = HttpClientRequest.post(`${base}${path}`).pipe(
      HttpClientRequest.setHeaders(headers),
      HttpClientRequest.bodyUnsafeJson(body)
    )
    // Never retried here: once sent, only reconciliation can tell whether it happened.
    return attempt("POST", endpoint, request, success, undefined, mayStillSend).pipe(
      Effect.catchIf((e): e is Transient => e._tag === "Transient", (t) => Effect.fail(finalOf(t)))
    )
  }

  const decodeWallets = decoder(WalletsResponse)
  const decodeTransactions = decoder(TransactionsResponse)
  const decodeSummary = decoder(SummaryResponse)
  const decodeStatus = quickly(quickStatusResponse, decoder(StatusResponse))
  const decodePayout = quickly(quickPayoutResponse, decoder(PayoutResponse))
  const decodeMobileMoney = decoder(MobileMoneyPayinResponse)
  const decodeCard = decoder(CardPayinResponse)
  const encodePayout = quickEncoder(quickPayoutBody, encoder(Schema.Struct(PayoutRequest.fields)))
  const encodeMobileMoney = encoder(Schema.Struct(MobileMoneyPayinRequest.fields))
  const encodeCard = encoder(Schema.Struct(CardPayinRequest.fields))

  const wallets = Effect.fn("PaymentClient.wallets")(function*() {
    const response = yield* getJson("wallet", HttpClientRequest.get(`${base}/wallet`), decodeWallets)
    // A balance no wallet can hold would make the balance check believe anything: the answer is refused.
    for (const w of response.wallets) {
      for (const field of ["balance", "available_balance", "pending_balance", "reserved_balance"] as const) {
        const checked = checkBalance(field, w[field], w.currency)
        if (Either.isLeft(checked)) return yield* new UnexpectedResponse({ status: 200, excerpt: scrub(`wallet ${w.currency}: ${checked.left}`, EXCERPT_LENGTH) })
      }
    }
    return response.wallets
  })

  const fetchPage = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.map(getJson("transactions", request, decodeTransactions), (r): TransactionsPage => r.data)

  const transactions = Effect.fn("PaymentClient.transactions")(function*(filters: TransactionFilters = {}) {
    return yield* fetchPage(
      HttpClientRequest.get(`${base}/wallet/transactions`).pipe(HttpClientRequest.setUrlParams(queryOf(filters)))
    )
  })

  /** links.next is followed only when it stays on the configured service (it will carry our credentials). */
  const onService = (link: string | null | undefined): link is string => {
    if (link === undefined || link === null || !URL.canParse(link)) return false
    const url = new URL(link)
    return url.origin === baseUrl.origin && url.pathname.startsWith(`${baseUrl.pathname}/wallet/transactions`)
  }

  interface Cursor {
    readonly request: HttpClientRequest.HttpClientRequest
    readonly expectedPage: number
    readonly pagesRead: number
  }

  // A listing that never ends (pages that keep coming, a total that lies) is refused, not read forever.
  const LISTING_PAGES_MAX = 2_000

  const nextPage = (filters: TransactionFilters, cursor: Cursor) =>
    Effect.flatMap(fetchPage(cursor.request), (page) => {
      const { current_page, total_pages, links } = page.pagination
      if (current_page < cursor.expectedPage) {
        return Effect.fail(
          new UnexpectedResponse({ status: 200, excerpt: `pagination did not advance past page ${current_page}` })
        )
      }
      const chunk = Chunk.fromIterable(page.transactions)
      if (current_page >= total_pages || page.transactions.length === 0) {
        return Effect.succeed([chunk, Option.none<Cursor>()] as const)
      }
      if (cursor.pagesRead + 1 >= LISTING_PAGES_MAX) {
        return Effect.fail(
          new UnexpectedResponse({
            status: 200,
            excerpt: `the listing did not end within ${LISTING_PAGES_MAX} pages (it claims ${total_pages}): narrow the dates or filters`
          })
        )
      }
      const request = onService(links.next)
        ? HttpClientRequest.get(links.next)
        : HttpClientRequest.get(`${base}/wallet/transactions`).pipe(
          HttpClientRequest.setUrlParams(queryOf({ ...filters, page: current_page + 1 }))
        )
      return Effect.succeed([chunk, Option.some<Cursor>({ request, expectedPage: current_page + 1, pagesRead: cursor.pagesRead + 1 })] as const)
    })

  const transactionStream = (filters: TransactionFilters = {}): Stream.Stream<WalletTransaction, ClientError> =>
    Stream.paginateChunkEffect<Cursor, WalletTransaction, ClientError, never>(
      {
        request: HttpClientRequest.get(`${base}/wallet/transactions`).pipe(
          HttpClientRequest.setUrlParams(queryOf(filters))
        ),
        expectedPage: filters.page ?? 1,
        pagesRead: 0
      },
      (cursor) => nextPage(filters, cursor)
    ).pipe(Stream.withSpan("PaymentClient.transactionStream"))

  const summary = Effect.fn("PaymentClient.summary")(function*() {
    const response = yield* getJson("summary", HttpClientRequest.get(`${base}/wallet/summary`), decodeSummary)
    return response.data
  })

  // status and payout run once or more per payout: untraced, as the HTTP call under them (a span and the
  // call site's stack trace per call were 5% of a run's CPU, and nothing exports traces).
  const status = Effect.fnUntraced(function*(reference: string) {
    const url = `${base}/payment/status/${encodeURIComponent(reference)}`
    const response = yield* getJson("status", HttpClientRequest.get(url), decodeStatus, reference)
    // The description is the service's words, kept as a failed row's error: scrubbed and bounded like any.
    const description = response.data.status_description
    const scrubbed = description === null || description === undefined ? description : scrub(description)
    return scrubbed === description ? response.data : new StatusRecord({ ...response.data, status_description: scrubbed }, true)
  })

  const payout = Effect.fnUntraced(function*(body: PayoutRequest, mayStillSend?: Effect.Effect<boolean>) {
    return yield* postJson("payout", "/payments/payout/mobile-money", yield* encodePayout(body), decodePayout, mayStillSend)
  })

  const payinMobileMoney = Effect.fn("PaymentClient.payinMobileMoney")(function*(body: MobileMoneyPayinRequest) {
    return yield* postJson("payin", "/payments/payin/mobile-money", yield* encodeMobileMoney(body), decodeMobileMoney)
  })

  const payinCard = Effect.fn("PaymentClient.payinCard")(function*(body: CardPayinRequest) {
    return yield* postJson("payin", "/payments/payin/card", yield* encodeCard(body), decodeCard)
  })

  const api: PaymentClientApi = {
    wallets,
    transactions,
    transactionStream,
    summary,
    status,
    payout,
    payinMobileMoney,
    payinCard,
    serverSkew: Ref.get(skew),
    serviceTimes: Effect.sync(() => Option.fromNullable(declared.times())),
    scrub: (text) => scrub(text)
  }
  return api
})

export class PaymentClient extends Effect.Service<PaymentClient>()("api/PaymentClient", {
  effect: make
}) {}
