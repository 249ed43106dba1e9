/**
 * One request and its whole answer, within a timeout: what the client classifies. Over any Effect
 * `HttpClient` (the tests run it over fetch, node:http and undici), or over undici directly
 * (UndiciExchange.ts) when the layer provides this tag.
 */
import { Context, type Duration, Effect, type Option, Stream } from "effect"
import { Headers, type HttpClient, type HttpClientError, type HttpClientRequest } from "@effect/platform"
import { TimedOut, TooLarge } from "./Transport.ts"

/** The longest answer read for one record (a status, a payout's answer, the wallets): far above any real one. */
export const RECORD_MAX_BYTES = 256 * 1024
/** The longest listing page read: 100 transactions are about 50 KB. */
export const PAGE_MAX_BYTES = 8 * 1024 * 1024

export interface Exchanged {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly date: string | undefined
  /** X-Sandbox-Clock: how a sandbox's virtual time runs (ServiceClock.ts decides whether to believe it). */
  readonly clock?: string | undefined
  readonly body: string
}

/** `maxBytes`: an answer declared or found longer is refused (TooLarge) and reading stops there. */
export type Send = (
  request: HttpClientRequest.HttpClientRequest,
  timeout: Duration.Duration,
  maxBytes: number
) => Effect.Effect<Exchanged, HttpClientError.HttpClientError | TimedOut | TooLarge>

/** Optional: the client falls back to `overHttpClient` without it. */
export class Exchange extends Context.Tag("api/Exchange")<Exchange, { readonly send: Send }>() {}

const REDACTED_HEADERS = ["authorization", "cookie", "set-cookie", "x-api-key", "x-api-secret"]

const utf8 = new TextDecoder()

/** The declared length, when the answer has a plain one. */
export const declaredLength = (value: string | undefined): number | undefined =>
  value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined

export const overHttpClient = (http: HttpClient.HttpClient): Send => (request, timeout, maxBytes) =>
  http.execute(request).pipe(
    Effect.flatMap((response) => {
      const headers = response.headers
      const declared = declaredLength(headers["content-length"])
      // Counted as it streams: failing the fold ends the stream, which cancels the body's reader.
      const body = declared !== undefined && declared > maxBytes
        ? Effect.fail(new TooLarge(response.status, maxBytes, declared))
        : Stream.runFoldEffect(response.stream, { size: 0, parts: new Array<Uint8Array>() }, (read, bytes) => {
          const size = read.size + bytes.length
          if (size > maxBytes) return Effect.fail(new TooLarge(response.status, maxBytes))
          read.parts.push(bytes)
          return Effect.succeed({ size, parts: read.parts })
        }).pipe(
          Effect.map((read) => utf8.decode(Buffer.concat(read.parts))),
          // fetch gives no stream for an answer without a body: that is an empty body, as `text` reads it.
          Effect.catchIf((e) => e._tag === "ResponseError" && e.reason === "EmptyBody", () => Effect.succeed(""))
        )
      return Effect.map(body, (text) => ({ status: response.status, retryAfter: headers["retry-after"], date: headers["date"], clock: headers["x-sandbox-clock"], body: text }))
    }),
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new TimedOut(timeout) }),
    Effect.locally(Headers.currentRedactedNames, REDACTED_HEADERS)
  )

export const sendOf = (http: HttpClient.HttpClient, exchange: Option.Option<Context.Tag.Service<Exchange>>): Send =>
  exchange._tag === "Some" ? exchange.value.send : overHttpClient(http)
