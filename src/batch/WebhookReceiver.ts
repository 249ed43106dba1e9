/**
 * The `--listen` webhook receiver. The spec defines no signature, so a webhook is never trusted: it
 * only names a reference to look up now. A forged or replayed call costs one status lookup at most.
 */
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Option, Schema } from "effect"
import { createServer } from "node:http"

const Hint = Schema.Struct({ data: Schema.Struct({ reference: Schema.String.pipe(Schema.maxLength(200)) }) })
const decodeHint = Schema.decodeUnknownOption(Schema.parseJson(Hint))

/** Extracts the reference a webhook body names, if it names one in the expected shape. */
export const referenceOf = (body: string): Option.Option<string> =>
  decodeHint(body).pipe(Option.map((hint) => hint.data.reference))

export const startWebhookReceiver = (
  listen: { readonly host: string; readonly port: number },
  onReference: (reference: string) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const server = yield* NodeHttpServer.make(() => createServer(), { host: listen.host, port: listen.port })
    const app = HttpRouter.empty.pipe(
      HttpRouter.post(
        "/webhooks",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = yield* request.text.pipe(Effect.orElseSucceed(() => ""))
          const reference = referenceOf(body)
          if (Option.isNone(reference)) return HttpServerResponse.text("ignored: no data.reference", { status: 400 })
          yield* onReference(reference.value)
          return HttpServerResponse.text("ok")
        })
      )
    )
    yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : listen.port
    return { url: `http://${listen.host}:${port}/webhooks` }
  })
