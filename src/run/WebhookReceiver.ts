/**
 * The `--listen` webhook receiver. The spec defines no signature, so a webhook is never trusted: it
 * only names a reference to look up now. A forged or replayed call costs one status lookup at most.
 */
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Option, Schema, Stream } from "effect"
import { createServer } from "node:http"

const Hint = Schema.Struct({ data: Schema.Struct({ reference: Schema.String.pipe(Schema.maxLength(200)) }) })
const decodeHint = Schema.decodeUnknownOption(Schema.parseJson(Hint))

/** Extracts the reference a webhook body names, if it names one in the expected shape. */
export const referenceOf = (body: string): Option.Option<string> =>
  decodeHint(body).pipe(Option.map((hint) => hint.data.reference))

/** Webhook bodies are small JSON: 64 KiB is plenty, and a cap by header and while streaming. */
export const MAX_BODY = 64 * 1024

const tooLarge = HttpServerResponse.text("body too large", { status: 413 })

/** The body as text, or none once it grows past MAX_BODY (it is not read further). */
const readCapped = (request: HttpServerRequest.HttpServerRequest) =>
  request.stream.pipe(
    Stream.runFoldWhileEffect(
      { size: 0, chunks: new Array<Uint8Array>() },
      (acc) => acc.size <= MAX_BODY,
      (acc, chunk) => Effect.sync(() => ({ size: acc.size + chunk.length, chunks: acc.size + chunk.length <= MAX_BODY ? [...acc.chunks, chunk] : acc.chunks }))
    ),
    Effect.map((acc) => (acc.size > MAX_BODY ? Option.none<string>() : Option.some(Buffer.concat(acc.chunks).toString("utf8")))),
    Effect.orElseSucceed(() => Option.some(""))
  )

export const startWebhookReceiver = (
  listen: { readonly host: string; readonly port: number },
  onReference: (reference: string) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    // A slow client is dropped: whole request within 10 s, headers within 5 s.
    const server = yield* NodeHttpServer.make(() => createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }), {
      host: listen.host,
      port: listen.port
    })
    const app = HttpRouter.empty.pipe(
      HttpRouter.post(
        "/webhooks",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const declared = Number(request.headers["content-length"])
          if (Number.isFinite(declared) && declared > MAX_BODY) return tooLarge
          const body = yield* readCapped(request)
          if (Option.isNone(body)) return tooLarge
          const reference = referenceOf(body.value)
          if (Option.isNone(reference)) return HttpServerResponse.text("ignored: no data.reference", { status: 400 })
          yield* onReference(reference.value)
          return HttpServerResponse.text("ok")
        }).pipe(
          // Nothing a caller sends may end or slow the run: any failure is an answer, never an error.
          Effect.catchAllCause(() => Effect.succeed(HttpServerResponse.text("bad request", { status: 400 })))
        )
      )
    )
    yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : listen.port
    return { url: `http://${listen.host}:${port}/webhooks` }
  })
