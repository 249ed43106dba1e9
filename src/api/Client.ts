/**
 * The typed client of the payment API v1, one chain on @effect/platform's HttpClient: base URL and
 * credentials (mapRequest), the request gate, a timeout, then the answer classified (Classify.ts) and
 * decoded with Schemas.ts. GETs retry transient failures; POSTs never retry on their own.
 */
import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Chunk, Context, Effect, Either, FiberRef, Layer, Option, ParseResult, Redacted, Ref, Schedule, Schema, Stream } from "effect"
import { classify, type Endpoint, EXCERPT_LENGTH, failureWithoutAnswer, makeScrub, TimedOut, TooLarge, type Transient } from "./Classify.ts"
import { checkBalance } from "./Plausible.ts"
import { PaymentClientConfig, type PaymentClientSettingsInput } from "./ClientConfig.ts"
import { type ClientError, NotSent, RateLimited, Unavailable, UnexpectedResponse } from "./Errors.ts"
import { RequestGate, type RequestGateOptions } from "./RequestGate.ts"
import { parseRetryAfter } from "./RetryAfter.ts"
import { retryAfterFailure } from "./Retrying.ts"
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
import { clockTimes, makeServiceClock, observeClock } from "./ServiceClock.ts"
import { type Outcome, recordRequest, routeMetrics } from "../observe/Metrics.ts"

export type { PaymentClientApi, TransactionFilters, TransactionsPage } from "./ClientApi.ts"
export { FENCED } from "./ClientApi.ts"

/** The longest answer read for one record (a status, a payout's answer, the wallets): far above any real one. */
export const RECORD_MAX_BYTES = 256 * 1024
/** The longest listing page read: 100 transactions are about 50 KB. */
export const PAGE_MAX_BYTES = 8 * 1024 * 1024

/**
 * Told of every failure of a call made where it is provided: jobs/ServiceProblem.ts watches one run's
 * calls with it (a concurrent run's failures are not its).
 */
export class FailureWatch extends Context.Tag("api/FailureWatch")<FailureWatch, (error: ClientError) => Effect.Effect<void>>() {}

const watched = Effect.serviceOption(FailureWatch)
const tellWatch = (error: ClientError) => Effect.flatMap(watched, Option.match({ onNone: () => Effect.void, onSome: (watch) => watch(error) }))
const told = <Args extends ReadonlyArray<unknown>, A>(call: (...args: Args) => Effect.Effect<A, ClientError>) => (...args: Args) =>
  Effect.tapError(call(...args), tellWatch)

// Each decoder and encoder compiled once.
const decodeWallets = Schema.decodeUnknownOption(WalletsResponse)
const decodeTransactions = Schema.decodeUnknownOption(TransactionsResponse)
const decodeSummary = Schema.decodeUnknownOption(SummaryResponse)
const decodeStatus = Schema.decodeUnknownOption(StatusResponse)
const decodePayout = Schema.decodeUnknownOption(PayoutResponse)
const decodeMobileMoney = Schema.decodeUnknownOption(MobileMoneyPayinResponse)
const decodeCard = Schema.decodeUnknownOption(CardPayinResponse)

// Synchronous (an Either, itself an effect): a body is encoded without a step of the runtime per field.
const encoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encodeEither(schema)
  return (body: A): Either.Either<I, NotSent> =>
    Either.mapLeft(encode(body), (e) => new NotSent({ reason: `invalid request body: ${ParseResult.TreeFormatter.formatErrorSync(e)}` }))
}
const encodePayout = encoder(Schema.Struct(PayoutRequest.fields))
const encodeMobileMoney = encoder(Schema.Struct(MobileMoneyPayinRequest.fields))
const encodeCard = encoder(Schema.Struct(CardPayinRequest.fields))

interface Answer {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly date: string | undefined
  /** X-Sandbox-Clock: how a sandbox's virtual time runs (ServiceClock.ts decides whether to believe it). */
  readonly clock: string | undefined
  readonly body: string
}

const utf8 = new TextDecoder()

/** The declared length, when the answer has a plain one. */
const declaredLength = (value: string | undefined): number | undefined =>
  value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined

/**
 * The whole answer, no longer than `maxBytes`. A declared length bounds the body by HTTP framing, so
 * it is read at once; without one the body is read as a stream and failing the fold past the cap ends
 * the stream, which aborts the request and drops the connection (nothing past the cap is buffered).
 */
const readAnswer = (response: HttpClientResponse.HttpClientResponse, maxBytes: number): Effect.Effect<Answer, HttpClientError.ResponseError | TooLarge> => {
  const headers = response.headers
  const declared = declaredLength(headers["content-length"])
  const tooLong = declared !== undefined && declared > maxBytes
  const answer = (body: string): Answer => ({ status: response.status, retryAfter: headers["retry-after"], date: headers["date"], clock: headers["x-sandbox-clock"], body })
  if (declared !== undefined && !tooLong) return Effect.map(response.text, answer)
  return Stream.runFoldEffect(response.stream, { size: 0, parts: new Array<Uint8Array>() }, (read, bytes) => {
    const size = read.size + bytes.length
    if (tooLong || size > maxBytes) return Effect.fail(new TooLarge(response.status, maxBytes, tooLong ? declared : undefined))
    read.parts.push(bytes)
    return Effect.succeed({ size, parts: read.parts })
  }).pipe(
    Effect.flatMap((read) => (tooLong ? Effect.fail(new TooLarge(response.status, maxBytes, declared)) : Effect.succeed(answer(utf8.decode(Buffer.concat(read.parts)))))),
    // fetch gives no stream for an answer without a body: that is an empty body, as `text` reads it.
    Effect.catchIf((e) => e._tag === "ResponseError" && e.reason === "EmptyBody", () => (tooLong ? Effect.fail(new TooLarge(response.status, maxBytes, declared)) : Effect.succeed(answer(""))))
  )
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

const isTransient = (e: ClientError | Transient): e is Transient => e._tag === "Transient"

/** A classified answer as the request metric's outcome (observe/Metrics.ts). */
const OUTCOME_OF: Record<(ClientError | Transient)["_tag"], Outcome> = {
  AuthError: "auth_error",
  ValidationError: "rejected",
  InsufficientBalance: "rejected",
  PayinRefused: "rejected",
  NotFound: "not_found",
  RateLimited: "rate_limited",
  // A GET's 5xx or 408; a POST's 5xx is an OutcomeUnknown, told apart by its status below.
  Transient: "server_error",
  OutcomeUnknown: "unexpected",
  UnexpectedResponse: "unexpected",
  NotSent: "unexpected",
  Unavailable: "unexpected"
}
const outcomeOf = (result: Either.Either<unknown, ClientError | Transient>, status: number): Outcome =>
  Either.isRight(result) ? "ok" : status === 429 ? "rate_limited" : status >= 500 ? "server_error" : OUTCOME_OF[result.left._tag]

// A listing that never ends (pages that keep coming, a total that lies) is refused, not read forever.
const LISTING_PAGES_MAX = 2_000

export const make = Effect.gen(function*() {
  const settings = yield* PaymentClientConfig
  const gate = yield* RequestGate
  const base = settings.baseUrl
  const baseUrl = new URL(URL.canParse(base) ? base : "http://invalid.invalid")
  const scrub = makeScrub([Redacted.value(settings.apiKey), Redacted.value(settings.apiSecret)])
  const headers = {
    accept: "application/json",
    "x-api-key": Redacted.value(settings.apiKey),
    "x-api-secret": Redacted.value(settings.apiSecret)
  }
  const connection = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest((request) => HttpClientRequest.setHeaders(HttpClientRequest.prependUrl(request, base), headers))
  )
  // No span per request, hence no trace headers sent to the service (they come from the span). With
  // the tracer off where the client is built (no OTLP endpoint: cli/Traces.ts) there is none to turn
  // off; the setting is an Effect.locally, about 22 operations a request, only paid when tracing.
  const http = (yield* FiberRef.get(FiberRef.currentTracerEnabled)) ? HttpClient.withTracerDisabledWhen(connection, () => true) : connection
  // Built once: Effect.retry given options builds its schedule again on every call.
  const retryPolicy = Schedule.exponential(settings.getRetry.base).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(settings.getRetry.times)),
    Schedule.upTo(settings.getRetry.maxElapsed),
    Schedule.whileInput(isTransient)
  )
  const timeout = settings.requestTimeout

  const skew = yield* Ref.make(Option.none<number>())
  // Requests are counted by route template, each route's metrics tagged once here.
  const routes = {
    wallet: routeMetrics("GET /wallet"),
    transactions: routeMetrics("GET /wallet/transactions"),
    summary: routeMetrics("GET /wallet/summary"),
    status: routeMetrics("GET /payment/status/{reference}"),
    payout: routeMetrics("POST /payments/payout/mobile-money"),
    payin: routeMetrics("POST /payments/payin/mobile-money"),
    card: routeMetrics("POST /payments/payin/card")
  }
  // A sandbox's declared clock, believed only from this machine (ServiceClock.ts).
  const declared = yield* Ref.make(makeServiceClock(baseUrl))

  /**
   * One request and its whole answer, within the timeout; the wait for the gate is not part of it.
   * Nothing here logs the request, and what leaves it (Classify.ts) carries no header: the
   * credentials cannot reach a log from here, so no redaction setting per request.
   */
  const exchange = (request: HttpClientRequest.HttpClientRequest, maxBytes: number) =>
    http.execute(request).pipe(
      Effect.flatMap((response) => readAnswer(response, maxBytes)),
      Effect.timeoutFail({ duration: timeout, onTimeout: () => new TimedOut(timeout) })
    )

  const attempt = <A>(
    method: "GET" | "POST",
    endpoint: Endpoint,
    request: HttpClientRequest.HttpClientRequest,
    success: (json: unknown) => Option.Option<A>,
    reference?: string,
    mayStillSend?: Effect.Effect<boolean>
  ): Effect.Effect<A, ClientError | Transient> => {
    const maxBytes = endpoint === "transactions" ? PAGE_MAX_BYTES : RECORD_MAX_BYTES
    // Every request is counted and timed here, once: sent (past the gate), then answered or not.
    const route = endpoint === "payin" && request.url.endsWith("/card") ? routes.card : routes[endpoint]
    // One pipe rather than a generator, the clock read from its service: a request's own steps are
    // about a third of the client's Effect operations.
    const send = Effect.clockWith((clock) => {
      const sentMs = clock.unsafeCurrentTimeMillis()
      return Effect.matchEffect(exchange(request, maxBytes), {
        onFailure: (error) =>
          Effect.zipRight(
            recordRequest(route, error._tag === "TimedOut" ? "timeout" : error._tag === "TooLarge" ? "too_large" : "network", (clock.unsafeCurrentTimeMillis() - sentMs) / 1000),
            Effect.fail(failureWithoutAnswer(method, error))
          ),
        onSuccess: (answer) => {
          const nowMs = clock.unsafeCurrentTimeMillis()
          const served = answer.date === undefined ? NaN : Date.parse(answer.date)
          const gateTold = answer.status === 429 ? gate.onRateLimited(Option.getOrUndefined(parseRetryAfter(answer.retryAfter, nowMs))) : gate.onSuccess
          const told = Effect.zipRight(Ref.update(declared, (clock) => observeClock(clock, nowMs, served, answer.clock)), gateTold)
          const result = classify({ method, endpoint, success, nowMs, scrub, reference }, answer)
          return Effect.zipRight(
            // Date has whole seconds: the skew is known to within one second, which the one-minute rule allows.
            Number.isFinite(served) ? Effect.zipRight(Ref.set(skew, Option.some(served - nowMs)), told) : told,
            Effect.zipRight(recordRequest(route, outcomeOf(result, answer.status), (nowMs - sentMs) / 1000), result)
          )
        }
      })
    })
    return mayStillSend === undefined
      ? Effect.zipRight(gate.take, send)
      : Effect.flatMap(gate.takeChecked(mayStillSend), (go) => (go ? send : Effect.fail(new NotSent({ reason: FENCED }))))
  }

  const getJson = <A>(
    endpoint: Endpoint,
    request: HttpClientRequest.HttpClientRequest,
    success: (json: unknown) => Option.Option<A>,
    reference?: string
  ): Effect.Effect<A, ClientError> =>
    attempt("GET", endpoint, request, success, reference).pipe(
      (once) => retryAfterFailure(once, retryPolicy),
      Effect.catchIf(isTransient, (t) => Effect.fail(finalOf(t)))
    )

  const postJson = <A>(
    endpoint: Endpoint,
    path: string,
    body: unknown,
    success: (json: unknown) => Option.Option<A>,
    mayStillSend?: Effect.Effect<boolean>
  ): Effect.Effect<A, ClientError> =>
    // Never retried here: once sent, only reconciliation can tell whether it happened.
    attempt("POST", endpoint, HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(path), body), success, undefined, mayStillSend).pipe(
      Effect.catchIf(isTransient, (t) => Effect.fail(finalOf(t)))
    )

  const wallets = Effect.fn("PaymentClient.wallets")(function*() {
    const response = yield* getJson("wallet", HttpClientRequest.get("/wallet"), decodeWallets)
    // A balance no wallet can hold would make the balance check believe anything: the answer is refused.
    for (const w of response.wallets) {
      for (const field of ["balance", "available_balance", "pending_balance", "reserved_balance"] as const) {
        const checked = checkBalance(field, w[field], w.currency)
        if (Either.isLeft(checked)) {
          return yield* Effect.fail(new UnexpectedResponse({ status: 200, excerpt: scrub(`wallet ${w.currency}: ${checked.left}`, EXCERPT_LENGTH) }))
        }
      }
    }
    return response.wallets
  })

  const listing = (filters: TransactionFilters) => HttpClientRequest.get("/wallet/transactions").pipe(HttpClientRequest.setUrlParams(queryOf(filters)))

  const fetchPage = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.map(getJson("transactions", request, decodeTransactions), (r): TransactionsPage => r.data)

  const transactions = Effect.fn("PaymentClient.transactions")(function*(filters: TransactionFilters = {}) {
    return yield* fetchPage(listing(filters))
  })

  /**
   * links.next as a path under the base URL, when it stays on the configured service's listing (it
   * will carry our credentials); undefined otherwise.
   */
  const onService = (link: string | null | undefined): string | undefined => {
    if (link === undefined || link === null || !URL.canParse(link)) return undefined
    const url = new URL(link)
    const prefix = `${baseUrl.pathname}/wallet/transactions`
    return url.origin === baseUrl.origin && url.pathname.startsWith(prefix) ? `${url.pathname.slice(baseUrl.pathname.length)}${url.search}` : undefined
  }

  interface Cursor {
    readonly request: HttpClientRequest.HttpClientRequest
    readonly expectedPage: number
    readonly pagesRead: number
  }

  const nextPage = (filters: TransactionFilters, cursor: Cursor) =>
    Effect.flatMap(fetchPage(cursor.request), (page) => {
      const { current_page, total_pages, links } = page.pagination
      if (current_page < cursor.expectedPage) {
        return Effect.fail(new UnexpectedResponse({ status: 200, excerpt: `pagination did not advance past page ${current_page}` }))
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
      const next = onService(links.next)
      const request = next !== undefined ? HttpClientRequest.get(next) : listing({ ...filters, page: current_page + 1 })
      return Effect.succeed([chunk, Option.some<Cursor>({ request, expectedPage: current_page + 1, pagesRead: cursor.pagesRead + 1 })] as const)
    })

  const transactionStream = (filters: TransactionFilters = {}): Stream.Stream<WalletTransaction, ClientError> =>
    Stream.paginateChunkEffect<Cursor, WalletTransaction, ClientError, never>(
      { request: listing(filters), expectedPage: filters.page ?? 1, pagesRead: 0 },
      (cursor) => nextPage(filters, cursor)
    ).pipe(Stream.withSpan("PaymentClient.transactionStream"))

  const summary = Effect.fn("PaymentClient.summary")(function*() {
    const response = yield* getJson("summary", HttpClientRequest.get("/wallet/summary"), decodeSummary)
    return response.data
  })

  // status and payout run once or more per payout: untraced, as the HTTP call under them.
  const status = (reference: string) =>
    Effect.map(getJson("status", HttpClientRequest.get(`/payment/status/${encodeURIComponent(reference)}`), decodeStatus, reference), (response) => {
      // The description is the service's words, kept as a failed row's error: scrubbed and bounded like any.
      const description = response.data.status_description
      const scrubbed = description === null || description === undefined ? description : scrub(description)
      return scrubbed === description ? response.data : new StatusRecord({ ...response.data, status_description: scrubbed }, true)
    })

  const payout = (body: PayoutRequest, mayStillSend?: Effect.Effect<boolean>) =>
    Effect.flatMap(encodePayout(body), (encoded) => postJson("payout", "/payments/payout/mobile-money", encoded, decodePayout, mayStillSend))

  const payinMobileMoney = Effect.fn("PaymentClient.payinMobileMoney")(function*(body: MobileMoneyPayinRequest) {
    return yield* postJson("payin", "/payments/payin/mobile-money", yield* encodeMobileMoney(body), decodeMobileMoney)
  })

  const payinCard = Effect.fn("PaymentClient.payinCard")(function*(body: CardPayinRequest) {
    return yield* postJson("payin", "/payments/payin/card", yield* encodeCard(body), decodeCard)
  })

  const api: PaymentClientApi = {
    wallets: told(wallets),
    transactions: told(transactions),
    transactionStream: (filters) => Stream.tapError(transactionStream(filters), tellWatch),
    summary: told(summary),
    status: told(status),
    payout: told(payout),
    payinMobileMoney: told(payinMobileMoney),
    payinCard: told(payinCard),
    serverSkew: Ref.get(skew),
    serviceTimes: Effect.map(Ref.get(declared), (clock) => Option.fromNullable(clockTimes(clock))),
    scrub: (text) => scrub(text)
  }
  return api
})

/** A connection's settings and its request gate's (`--rate`: `ratePerSecond`; undefined starts unlimited). */
export interface ConnectionInput extends PaymentClientSettingsInput, RequestGateOptions {}

/**
 * A connection's HttpClient: @effect/platform-node's undici client on a dispatcher of its own, as
 * `NodeHttpClient.layerUndici` builds it, without that layer's merge of its own context into every
 * request's (a copy of the caller's context and an Effect.locally per request, for nothing it reads).
 */
const undici: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(HttpClient.HttpClient, Effect.map(NodeHttpClient.makeDispatcher, NodeHttpClient.makeUndici))

export class PaymentClient extends Effect.Service<PaymentClient>()("api/PaymentClient", {
  effect: make,
  dependencies: [undici]
}) {
  /**
   * The client of one connection, with its request gate kept in the output (a run shares it with the
   * account's other workers once the account is known). `http` replaces undici (tests over fetch).
   */
  static readonly layer = (input: ConnectionInput, http?: Layer.Layer<HttpClient.HttpClient>) => {
    const { ratePerSecond, minRate, recoveryPerSecond, defaultPauseMs, ...settings } = input
    const gate: RequestGateOptions = { ratePerSecond, minRate, recoveryPerSecond, defaultPauseMs }
    return (http === undefined ? PaymentClient.Default : Layer.provide(PaymentClient.DefaultWithoutDependencies, http)).pipe(
      Layer.provide(PaymentClientConfig.layer(settings)),
      Layer.provideMerge(RequestGate.layer(gate))
    )
  }
}
