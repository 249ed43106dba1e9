/**
 * Whether a service on loopback is our sandbox (`payouts sandbox`), not a tunnel to the real service:
 * only the sandbox answers its admin clock, `GET /__sandbox/clock` (DESIGN 4), with the same credentials.
 * Loaded only when the base URL is on loopback (Confirm.ts), so other commands never load an HTTP client.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Redacted, Schema } from "effect"
import type { Connection } from "./Settings.ts"

const ClockAnswer = Schema.Struct({ now: Schema.String, time_scale: Schema.Number })

/** Any doubt (no answer within 2 s, another status, another shape) is "no": the question is then asked. */
export const isOurSandbox = (connection: Connection): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.get(`${new URL(connection.baseUrl).origin}/__sandbox/clock`).pipe(
      HttpClientRequest.setHeaders({
        accept: "application/json",
        "x-api-key": Redacted.value(connection.apiKey),
        "x-api-secret": Redacted.value(connection.apiSecret)
      })
    )
    const response = yield* client.execute(request)
    if (response.status !== 200) return false
    return Schema.is(ClockAnswer)(yield* response.json)
  }).pipe(Effect.scoped, Effect.timeout("2 seconds"), Effect.orElseSucceed(() => false), Effect.provide(NodeHttpClient.layerUndici))
