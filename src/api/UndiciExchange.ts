/**
 * The client's requests on undici directly: the same dispatcher call, errors and abort as
 * `NodeHttpClient.layerUndici` (whose `HttpClient` this layer also provides, on the same Agent), without
 * its per-request wrapping (URL registry, interruptible response, header copies), and with the timeout
 * from `Deadlines` instead of a race: together about half of a status call's CPU (scripts/bench/hotpath.ts).
 */
import { HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse, UrlParams } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import type { Dispatcher } from "@effect/platform-node/Undici"
import { Effect, Layer } from "effect"
import { EventEmitter } from "node:events"
import { type Deadlines, makeDeadlines } from "./Deadlines.ts"
import { declaredLength, Exchange, type Exchanged, overHttpClient, type Send } from "./Exchange.ts"
import { TimedOut, TooLarge } from "./Transport.ts"

const noop = () => {}

const header = (value: string | Array<string> | undefined) => (Array.isArray(value) ? value.join(", ") : value)

const utf8 = new TextDecoder()

/** ResponseError needs a response; only its status matters once the body is lost. */
const bodyLost = (request: HttpClientRequest.HttpClientRequest, status: number, cause: unknown) =>
  new HttpClientError.ResponseError({
    request,
    response: HttpClientResponse.fromWeb(request, new Response(null, { status: status >= 200 && status <= 599 ? status : 500 })),
    reason: "Decode",
    cause
  })

const makeSend = (dispatcher: Dispatcher, deadlines: Deadlines, fallback: Send): Send => (request, timeout, maxBytes) => {
  const body = request.body
  if (body._tag !== "Empty" && body._tag !== "Uint8Array") return fallback(request, timeout, maxBytes)
  const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
  if (url._tag === "Left") {
    return Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left }))
  }
  return Effect.async<Exchanged, HttpClientError.HttpClientError | TimedOut | TooLarge>((resume) => {
    // undici takes an EventEmitter as its signal ("abort" destroys the request's connection): an
    // AbortController and its AbortSignal cost several times more to make, once per request.
    const signal = new EventEmitter()
    let settled = false
    const deadline = deadlines.add(timeout, () => {
      if (settled) return
      settled = true
      // The connection is destroyed: it is not reused with an answer still due on it.
      signal.emit("abort")
      resume(Effect.fail(new TimedOut(timeout)))
    })
    const settle = (result: Effect.Effect<Exchanged, HttpClientError.HttpClientError | TooLarge>) => {
      if (settled) return
      settled = true
      deadlines.cancel(deadline)
      resume(result)
    }
    const transport = (cause: unknown) => settle(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
    try {
      dispatcher.request({
        signal,
        method: request.method,
        headers: request.headers,
        origin: url.right.origin,
        path: url.right.pathname + url.right.search + url.right.hash,
        body: body._tag === "Empty" ? null : body.body,
        // As NodeHttpClient.layerUndici: the timeout is ours.
        headersTimeout: 60 * 60 * 1000,
        bodyTimeout: 0
      }).then((response) => {
        response.body.on("error", noop)
        // Read no further than the cap: an answer declared or found longer drops the connection.
        const tooLarge = (declared?: number) => {
          if (settled) return
          settle(Effect.fail(new TooLarge(response.statusCode, maxBytes, declared)))
          signal.emit("abort")
        }
        const declared = declaredLength(header(response.headers["content-length"]))
        if (declared !== undefined && declared > maxBytes) return tooLarge(declared)
        const parts: Array<Buffer> = []
        let size = 0
        response.body.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > maxBytes) tooLarge()
          else parts.push(chunk)
        })
        response.body.on("end", () =>
          settle(Effect.succeed({
            status: response.statusCode,
            retryAfter: header(response.headers["retry-after"]),
            date: header(response.headers["date"]),
            clock: header(response.headers["x-sandbox-clock"]),
            body: utf8.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts))
          })))
        response.body.on("error", (cause) => settle(Effect.fail(bodyLost(request, response.statusCode, cause))))
      }, transport)
    } catch (cause) {
      transport(cause)
    }
    return Effect.sync(() => {
      if (settled) return
      settled = true
      deadlines.cancel(deadline)
      signal.emit("abort")
    })
  })
}

const exchange = Layer.scoped(
  Exchange,
  Effect.gen(function*() {
    const dispatcher = yield* NodeHttpClient.Dispatcher
    const deadlines = yield* makeDeadlines
    return { send: makeSend(dispatcher, deadlines, overHttpClient(yield* HttpClient.HttpClient)) }
  })
)

/** `HttpClient` (the platform's, for everything else) and `Exchange` (the client's calls) on one undici Agent. */
export const layer: Layer.Layer<HttpClient.HttpClient | Exchange> = exchange.pipe(
  Layer.provideMerge(NodeHttpClient.layerUndiciWithoutDispatcher),
  Layer.provide(NodeHttpClient.dispatcherLayer)
)
