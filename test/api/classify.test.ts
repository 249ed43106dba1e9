import { inspect } from "node:util"
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Effect, type Layer, Stream } from "effect"
import { PaymentClient } from "../../src/api/Client.ts"
import type { PaymentClientSettingsInput } from "../../src/api/ClientConfig.ts"
import type { ClientError } from "../../src/api/Errors.ts"
import { RequestGate } from "../../src/api/RequestGate.ts"
import * as F from "./support/fixtures.ts"
import { closedPort, type Received, type Reply, scriptedServer, type ScriptedServer } from "./support/ScriptedServer.ts"

const KEY = "key-3f9a7c1d2e5b"
const SECRET = "sec-8b7e6d5c4a3f"

const always = (reply: Reply) => () => reply

const assertNoSecrets = (error: unknown) => {
  const forms = [
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: 10 }),
    Cause.pretty(Cause.fail(error)),
    error instanceof Error ? error.stack ?? "" : ""
  ]
  for (const form of forms) {
    expect(form).not.toContain(KEY)
    expect(form).not.toContain(SECRET)
  }
}

/** The error of a failed call, checked free of secrets. */
const failureOf = <A>(effect: Effect.Effect<A, ClientError>) =>
  Effect.tap(Effect.flip(effect), (error) => Effect.sync(() => assertNoSecrets(error)))

const payoutBody = () => F.payoutRequest

describe("PaymentClient classification", () => {
  const clientLayer = (baseUrl: string, input: Partial<PaymentClientSettingsInput> = {}, http?: Layer.Layer<HttpClient.HttpClient>) =>
    PaymentClient.layer({ baseUrl, apiKey: KEY, apiSecret: SECRET, requestTimeout: "2 seconds", getRetry: { base: "10 millis", times: 3 }, minRate: 50, ...input }, http)

  const withServer = <A, E>(
    script: (request: Received, index: number) => Reply,
    use: (server: ScriptedServer, client: PaymentClient) => Effect.Effect<A, E, RequestGate>,
    input: Partial<PaymentClientSettingsInput> = {}
  ) =>
    Effect.scoped(
      Effect.flatMap(scriptedServer(script), (server) =>
        Effect.flatMap(PaymentClient, (client) => use(server, client)).pipe(
          Effect.provide(clientLayer(server.baseUrl, input))
        ))
    )

  it.scopedLive("sends the spec's headers: auth, Accept, Content-Type only with a body", () =>
    withServer(
      (req) => (req.method === "GET" ? { status: 200, json: F.walletsBody } : { status: 200, json: F.payoutBody }),
      (server, client) =>
        Effect.gen(function*() {
          const wallets = yield* client.wallets()
          expect(wallets.map((w) => w.id)).toEqual(["wal_01", "wal_02"])
          yield* client.payout(payoutBody())
          const [get, post] = server.received
          expect(get.method).toBe("GET")
          expect(get.url).toBe("/v1/wallet")
          expect(get.headers["x-api-key"]).toBe(KEY)
          expect(get.headers["x-api-secret"]).toBe(SECRET)
          expect(get.headers.accept).toBe("application/json")
          expect(get.headers["content-type"]).toBeUndefined()
          expect(post.url).toBe("/v1/payments/payout/mobile-money")
          expect(post.headers["content-type"]).toBe("application/json")
          expect(post.headers.accept).toBe("application/json")
          expect(post.headers["x-api-key"]).toBe(KEY)
          expect(JSON.parse(post.body)).toEqual(F.payoutRequest)
        })
    ))

  it.scopedLive("success shape wins whatever the status code, optional fields absent", () =>
    withServer(
      (req, i) =>
        req.url.includes("payout")
          ? { status: i === 0 ? 201 : 202, json: { reference: "TXN9", status: "pending" } }
          : req.url.includes("card")
          ? { status: 201, json: { error: false, reference: "TXN8", payment_url: "https://pay.example/8", status: "success" } }
          : { status: 202, json: { error: false, reference: "TXN7", status: "success" } },
      (_, client) =>
        Effect.gen(function*() {
          const first = yield* client.payout(payoutBody())
          const second = yield* client.payout(payoutBody())
          expect([first.reference, second.reference, first.fee, first.estimated_delivery]).toEqual(["TXN9", "TXN9", undefined, undefined])
          const card = yield* client.payinCard(F.cardPayinRequest)
          expect([card.reference, card.amount, card.expires_at]).toEqual(["TXN8", undefined, undefined])
          const momo = yield* client.payinMobileMoney(F.mobileMoneyPayinRequest)
          expect([momo.reference, momo.currency]).toEqual(["TXN7", undefined])
        })
    ))

  it.scopedLive("reads summary and status with optional fields absent", () =>
    withServer(
      (req) =>
        req.url.endsWith("/summary")
          ? { status: 200, json: F.summaryBody }
          : {
            status: 200,
            json: {
              success: true,
              message: "ok",
              data: {
                reference: "TXN 1/2",
                amount: "5000",
                currency: "XAF",
                type: "payout",
                status: "completed",
                created_at: "2025-03-01T12:00:00Z",
                updated_at: "2025-03-01T12:05:00Z"
              }
            }
          },
      (server, client) =>
        Effect.gen(function*() {
          const summary = yield* client.summary()
          expect(summary.transaction_summary.last_30_days.total_fee_amount).toBe(290)
          const record = yield* client.status("TXN 1/2")
          expect([record.amount, record.fee, record.customer]).toEqual([5000, 0, undefined])
          expect(server.received[1].url).toBe("/v1/payment/status/TXN%201%2F2")
        })
    ))

  it.scopedLive("auth: envelope A errors.authentication, bare 401, bare 403", () =>
    withServer(
      (_, i) =>
        i === 0
          ? { status: 401, json: { success: false, message: "Unauthenticated", errors: { authentication: ["Invalid credentials"] } } }
          : i === 1
          ? { status: 401 }
          : { status: 403, text: "<html>forbidden</html>" },
      (_, client) =>
        Effect.gen(function*() {
          expect((yield* failureOf(client.wallets()))._tag).toBe("AuthError")
          expect((yield* failureOf(client.payout(payoutBody())))._tag).toBe("AuthError")
          expect((yield* failureOf(client.summary()))._tag).toBe("AuthError")
        })
    ))

  it.scopedLive("validation keyed by field, insufficient balance, not found", () =>
    withServer(
      (req) =>
        req.url.startsWith("/v1/wallet/transactions")
          ? { status: 422, json: { success: false, message: "Invalid", errors: { from_date: ["The format must be YYYY-MM-DD"] } } }
          : req.url.startsWith("/v1/payment/status")
          ? { status: 404, json: { success: false, message: "Transaction not found", errors: { reference: ["No transaction exists"] } } }
          : JSON.parse(req.body).amount > 1000000
          ? { status: 422, json: { success: false, message: "Insufficient balance", errors: { amount: ["Insufficient wallet balance"] } } }
          : { status: 200, json: F.envelopeA },
      (_, client) =>
        Effect.gen(function*() {
          const dates = yield* failureOf(client.transactions({ from_date: "01/03/2025" }))
          expect(dates).toMatchObject({ _tag: "ValidationError", errors: { from_date: ["The format must be YYYY-MM-DD"] } })
          const phone = yield* failureOf(client.payout(payoutBody()))
          expect(phone).toMatchObject({ _tag: "ValidationError", errors: { phoneNumber: [expect.any(String)] } })
          const amount = yield* failureOf(client.payout({ ...payoutBody(), amount: 5_000_000 }))
          expect(amount).toMatchObject({ _tag: "InsufficientBalance", errors: { amount: ["Insufficient wallet balance"] } })
          const missing = yield* failureOf(client.status("TXNNOPE"))
          expect(missing).toMatchObject({ _tag: "NotFound", reference: "TXNNOPE", message: "Transaction not found" })
        })
    ))

  it.scopedLive("429 on a POST: RateLimited with Retry-After (seconds, HTTP date), never resent, gate slowed", () =>
    withServer(
      (_, i) => ({
        status: 429,
        headers: { "retry-after": i === 0 ? "2" : new Date(Date.now() + 30_000).toUTCString() }
      }),
      (server, client) =>
        Effect.gen(function*() {
          const gate = yield* RequestGate
          const started = Date.now()
          const seconds = yield* failureOf(client.payout(payoutBody()))
          expect(seconds).toMatchObject({ _tag: "RateLimited", retryAfterMs: 2000 })
          expect(yield* gate.currentRate).toBeLessThan(Number.POSITIVE_INFINITY)
          expect(server.received).toHaveLength(1)
          // the gate pauses everyone for 2s (from the 429) before the next call goes out
          const date = yield* failureOf(client.payout(payoutBody()))
          expect(Date.now() - started).toBeGreaterThanOrEqual(1990)
          expect(date._tag).toBe("RateLimited")
          const ms = date._tag === "RateLimited" ? date.retryAfterMs ?? 0 : 0
          expect(ms).toBeGreaterThan(28_000)
          expect(ms).toBeLessThanOrEqual(30_000)
          expect(server.received).toHaveLength(2)
        })
    ))

  it.scopedLive("429 on a GET is retried after Retry-After; repeated 429 ends RateLimited", () =>
    withServer(
      (req, i) =>
        req.url === "/v1/wallet" && i === 0
          ? { status: 429, headers: { "retry-after": "1" } }
          : req.url === "/v1/wallet"
          ? { status: 200, json: F.walletsBody }
          : { status: 429, headers: { "retry-after": "0" } },
      (server, client) =>
        Effect.gen(function*() {
          const started = Date.now()
          expect(yield* client.wallets()).toHaveLength(2)
          expect(Date.now() - started).toBeGreaterThanOrEqual(950)
          const limited = yield* failureOf(client.summary())
          expect(limited).toMatchObject({ _tag: "RateLimited", retryAfterMs: 0 })
          expect(server.received.filter((r) => r.url.endsWith("/summary"))).toHaveLength(4)
        })
    ))

  it.scopedLive("PayinRefused from envelope B, even when its status reads success", () =>
    withServer(
      always({ status: 200, json: { error: true, reference: "TXN5", status: "success", error_message: "Card declined" } }),
      (_, client) =>
        Effect.gen(function*() {
          expect(yield* failureOf(client.payinCard(F.cardPayinRequest))).toMatchObject({
            _tag: "PayinRefused",
            message: "Card declined",
            reference: "TXN5"
          })
          expect((yield* failureOf(client.payinMobileMoney(F.mobileMoneyPayinRequest)))._tag).toBe("PayinRefused")
        })
    ))

  it.scopedLive("a POST answered 5xx is OutcomeUnknown, envelope A included, and is sent once", () =>
    withServer(
      (_, i) =>
        i === 0
          ? { status: 500, json: { success: false, message: "Insufficient balance", errors: { amount: ["too low"] } } }
          : { status: 503 },
      (server, client) =>
        Effect.gen(function*() {
          expect(yield* failureOf(client.payout(payoutBody()))).toMatchObject({ _tag: "OutcomeUnknown", status: 500 })
          expect(yield* failureOf(client.payinCard(F.cardPayinRequest))).toMatchObject({ _tag: "OutcomeUnknown", status: 503 })
          expect(server.received).toHaveLength(2)
        })
    ))

  it.scopedLive("a POST reset after it was received is OutcomeUnknown", () =>
    withServer(always({ reset: true }), (server, client) =>
      Effect.gen(function*() {
        expect((yield* failureOf(client.payout(payoutBody())))._tag).toBe("OutcomeUnknown")
        expect(server.received).toHaveLength(1)
      })))

  it.scopedLive("a POST held past the request timeout is OutcomeUnknown", () =>
    withServer(
      always({ hold: true }),
      (server, client) =>
        Effect.gen(function*() {
          const error = yield* failureOf(client.payout(payoutBody()))
          expect(error).toMatchObject({ _tag: "OutcomeUnknown" })
          expect(String(error)).toContain("no answer within")
          expect(server.received).toHaveLength(1)
        }),
      { requestTimeout: "300 millis" }
    ))

  it.scopedLive("an answer cut off after its headers: OutcomeUnknown for a POST, retried then Unavailable for a GET", () =>
    withServer(always({ cut: 200 }), (server, client) =>
      Effect.gen(function*() {
        const error = yield* failureOf(client.payout(payoutBody()))
        expect(error).toMatchObject({ _tag: "OutcomeUnknown" })
        expect(String(error)).toContain("answer cut off")
        expect(server.received).toHaveLength(1)
        expect((yield* failureOf(client.wallets()))._tag).toBe("Unavailable")
        expect(server.received).toHaveLength(5)
      })))

  it.scopedLive("a request past its timeout has its connection closed, not left to a late answer", () =>
    withServer(
      always({ hold: true }),
      (server, client) =>
        Effect.gen(function*() {
          expect((yield* failureOf(client.payout(payoutBody())))._tag).toBe("OutcomeUnknown")
          expect(server.received).toHaveLength(1)
          yield* Effect.sleep("50 millis").pipe(Effect.repeat({ until: () => server.open() === 0, times: 40 }))
          expect(server.open()).toBe(0)
        }),
      { requestTimeout: "200 millis" }
    ))

  it.scopedLive("a POST with a 2xx body we cannot read is OutcomeUnknown; a 4xx one is UnexpectedResponse", () =>
    withServer(
      (_, i) => (i === 0 ? { status: 200, text: "OK" } : { status: 400, text: "x".repeat(5000) }),
      (_, client) =>
        Effect.gen(function*() {
          expect(yield* failureOf(client.payout(payoutBody()))).toMatchObject({ _tag: "OutcomeUnknown", status: 200 })
          const unexpected = yield* failureOf(client.payout(payoutBody()))
          expect(unexpected._tag).toBe("UnexpectedResponse")
          if (unexpected._tag === "UnexpectedResponse") expect(unexpected.excerpt.length).toBeLessThanOrEqual(203)
        })
    ))

  it.live("connection refused, before sending: NotSent for POST and GET; an invalid URL too", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const refused = yield* Effect.flatMap(PaymentClient, (c) =>
        Effect.all([failureOf(c.payout(payoutBody())), failureOf(c.wallets())])).pipe(
          Effect.provide(clientLayer(`http://127.0.0.1:${port}/v1`))
        )
      for (const error of refused) {
        expect(error._tag).toBe("NotSent")
        expect(String(error)).toContain("ECONNREFUSED")
      }
      const invalid = yield* Effect.flatMap(PaymentClient, (c) => failureOf(c.payout(payoutBody()))).pipe(
        Effect.provide(clientLayer("not a url/v1"))
      )
      expect(invalid._tag).toBe("NotSent")
    }))

  it.live("connection refused is NotSent through fetch and node:http clients too", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      for (const http of [FetchHttpClient.layer, NodeHttpClient.layer]) {
        const error = yield* Effect.flatMap(PaymentClient, (c) => failureOf(c.payout(payoutBody()))).pipe(
          Effect.provide(clientLayer(`http://127.0.0.1:${port}/v1`, {}, http))
        )
        expect(error._tag).toBe("NotSent")
      }
    }))

  it.scopedLive("GET retried after a transient 503 (with or without envelope), then succeeds", () =>
    withServer(
      (_, i) =>
        i === 0
          ? { status: 503 }
          : i === 1
          ? { status: 502, json: { success: false, message: "Bad gateway" } }
          : { status: 200, json: F.transactionsBody },
      (server, client) =>
        Effect.gen(function*() {
          const page = yield* client.transactions({ type: "payout", limit: 50 })
          expect(page.transactions[0].reference).toBe("TXN20250301A1")
          expect(server.received).toHaveLength(3)
          expect(server.received[2].url).toBe("/v1/wallet/transactions?type=payout&limit=50")
        })
    ))

  it.scopedLive("GET that keeps failing (5xx, reset, timeout) ends Unavailable after bounded retries", () =>
    withServer(
      (req) =>
        req.url.endsWith("/wallet") ? { status: 500 } : req.url.endsWith("/summary") ? { reset: true } : { hold: true },
      (server, client) =>
        Effect.gen(function*() {
          expect(yield* failureOf(client.wallets())).toMatchObject({ _tag: "Unavailable", status: 500 })
          expect((yield* failureOf(client.summary()))._tag).toBe("Unavailable")
          expect((yield* failureOf(client.status("TXN1")))._tag).toBe("Unavailable")
          const count = (part: string) => server.received.filter((r) => r.url.includes(part)).length
          expect([count("/wallet"), count("/summary"), count("/status/")]).toEqual([8, 4, 4])
        }),
      { requestTimeout: "200 millis" }
    ))

  it.scopedLive("secrets echoed by the server are scrubbed from errors", () =>
    withServer(
      (_, i) =>
        i === 0
          ? { status: 400, text: `bad credentials ${KEY} / ${SECRET}` }
          : { status: 422, json: { success: false, message: `key ${KEY}`, errors: { x: [`secret ${SECRET}`] } } },
      (_, client) =>
        Effect.gen(function*() {
          expect((yield* failureOf(client.payout(payoutBody())))._tag).toBe("UnexpectedResponse")
          expect((yield* failureOf(client.payout(payoutBody())))._tag).toBe("ValidationError")
        })
    ))

  it.scopedLive("transactionStream follows links.next on the service, page+1 otherwise, every page", () =>
    withServer(
      (req) => {
        const url = new URL(req.url, "http://x")
        const page = Number(url.searchParams.get("page") ?? "1")
        const tx = (n: number) => ({ ...F.walletTransaction, id: `txn_${n}`, reference: `TXN${n}` })
        const next = page === 1
          ? `http://127.0.0.1:${req.headers.host?.split(":")[1]}/v1/wallet/transactions?page=2&limit=2&type=payout`
          : page === 2
          ? "https://elsewhere.example/v1/wallet/transactions?page=3"
          : null
        return {
          status: 200,
          json: {
            success: true,
            message: "ok",
            data: {
              transactions: page <= 3 ? [tx(page * 2 - 1), tx(page * 2)].slice(0, page === 3 ? 1 : 2) : [],
              pagination: { total: 5, count: 2, per_page: 2, current_page: page, total_pages: 3, links: { next } }
            }
          }
        }
      },
      (server, client) =>
        Effect.gen(function*() {
          const all = yield* Stream.runCollect(client.transactionStream({ type: "payout", limit: 2 }))
          expect(Chunk.toReadonlyArray(all).map((t) => t.id)).toEqual(["txn_1", "txn_2", "txn_3", "txn_4", "txn_5"])
          expect(server.received.map((r) => r.url)).toEqual([
            "/v1/wallet/transactions?type=payout&limit=2",
            "/v1/wallet/transactions?page=2&limit=2&type=payout",
            "/v1/wallet/transactions?type=payout&limit=2&page=3"
          ])
          expect(server.received.every((r) => r.headers["x-api-key"] === KEY)).toBe(true)
        })
    ))

  it.scopedLive("transactionStream stops at 2,000 pages of a listing that never ends, saying so", () =>
    withServer(
      (req) => {
        const page = Number(new URL(req.url, "http://x").searchParams.get("page") ?? "1")
        const pagination = { ...F.pagination, total: 1_000_000_000, current_page: page, total_pages: 10_000_000, links: { next: null } }
        return { status: 200, json: { ...F.transactionsBody, data: { ...F.transactionsBody.data, pagination } } }
      },
      (server, client) =>
        Effect.gen(function*() {
          const error = yield* failureOf(Stream.runDrain(client.transactionStream()))
          expect(error._tag).toBe("UnexpectedResponse")
          expect(error.message).toContain("did not end within 2000 pages (it claims 10000000)")
          expect(server.received.length).toBe(2_000)
        })
    ), 120_000)

  it.scopedLive("transactionStream fails rather than loop when pagination does not advance", () =>
    withServer(
      always({
        status: 200,
        json: {
          ...F.transactionsBody,
          data: { ...F.transactionsBody.data, pagination: { ...F.pagination, current_page: 1, total_pages: 9 } }
        }
      }),
      (_, client) =>
        Effect.gen(function*() {
          const error = yield* failureOf(Stream.runDrain(client.transactionStream()))
          expect(error._tag).toBe("UnexpectedResponse")
        })
    ))
})
