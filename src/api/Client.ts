/**
 * The typed client of the payment API v1, one chain on @effect/platform's HttpClient (ClientRequests.ts):
 * base URL and credentials (mapRequest), the request gate, a timeout, then the answer classified
 * (Classify.ts) and decoded with Schemas.ts. GETs retry transient failures; POSTs never retry on their own.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Chunk, Effect, Either, Layer, Option, Ref, Stream } from "effect"
import { EXCERPT_LENGTH } from "./Classify.ts"
import { decodeCard, decodeMobileMoney, decodePayout, decodeStatus, decodeSummary, decodeTransactions, decodeWallets, encodeCard, encodeMobileMoney, encodePayout } from "./ClientCodecs.ts"
import { makeRequests } from "./ClientRequests.ts"
import { checkBalance } from "./Plausible.ts"
import { PaymentClientConfig, type PaymentClientSettingsInput } from "./ClientConfig.ts"
import { type ClientError, UnexpectedResponse } from "./Errors.ts"
import { tellWatch, told } from "./FailureWatch.ts"
import { RequestGate } from "./RequestGate.ts"
import type { RequestGateOptions } from "./GateTunings.ts"
import { type CardPayinRequest, type MobileMoneyPayinRequest, type PayoutRequest, StatusRecord, type WalletTransaction } from "./Schemas.ts"
import type { PaymentClientApi, TransactionFilters, TransactionsPage } from "./ClientApi.ts"
import { clockTimes } from "./ServiceClock.ts"

const queryOf = (filters: TransactionFilters): Record<string, string> =>
  Object.fromEntries(
    Object.entries(filters).filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => [k, String(v)])
  )

// A listing that never ends (pages that keep coming, a total that lies) is refused, not read forever.
const LISTING_PAGES_MAX = 2_000

export const make = Effect.gen(function*() {
  const { baseUrl, scrub, skew, declared, getJson, postJson } = yield* makeRequests

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
