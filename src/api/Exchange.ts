/**
 * One request and its whole answer, within a timeout: what the client classifies. Over any Effect
 * `HttpClient` (the tests run it over fetch, node:http and undici), or over undici directly
 * (UndiciExchange.ts) when the layer provides this tag.
 */
import { Context, type Duration, Effect, type Option } from "effect"
import { Headers, type HttpClient, type HttpClientError, type HttpClientRequest } from "@effect/platform"
import { TimedOut } from "./Transport.ts"

export interface Exchanged {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly date: string | undefined
  readonly body: string
}

export type Send = (
  request: HttpClientRequest.HttpClientRequest,
  timeout: Duration.Duration
) => Effect.Effect<Exchanged, HttpClientError.HttpClientError | TimedOut>

/** Optional: the client falls back to `overHttpClient` without it. */
export class Exchange extends Context.Tag("api/Exchange")<Exchange, { readonly send: Send }>() {}

const REDACTED_HEADERS = ["authorization", "cookie", "set-cookie", "x-api-key", "x-api-secret"]

export const overHttpClient = (http: HttpClient.HttpClient): Send => (request, timeout) =>
  http.execute(request).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (body) => {
        const headers = response.headers
        return { status: response.status, retryAfter: headers["retry-after"], date: headers["date"], body }
      })
    ),
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new TimedOut(timeout) }),
    Effect.locally(Headers.currentRedactedNames, REDACTED_HEADERS)
  )

export const sendOf = (http: HttpClient.HttpClient, exchange: Option.Option<Context.Tag.Service<Exchange>>): Send =>
  exchange._tag === "Some" ? exchange.value.send : overHttpClient(http)
