/**
 * Wiring for the commands that talk to the service: settings -> client config -> PaymentClient.
 * An interactive look-up retries a little, not for the 45 s a batch run tolerates.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { PaymentClientConfig } from "../api/ClientConfig.ts"
import { RequestGate } from "../api/RequestGate.ts"
import { type Connection, type ConnectionOptions, resolveConnection } from "./Settings.ts"

export const clientLayer = (connection: Connection) =>
  PaymentClient.Default.pipe(
    Layer.provide(
      PaymentClientConfig.layer({
        ...connection,
        requestTimeout: "20 seconds",
        getRetry: { times: 2, base: "300 millis", maxElapsed: "5 seconds" }
      })
    ),
    Layer.provide(RequestGate.Default),
    Layer.provide(NodeHttpClient.layerUndici)
  )

export const withClient =
  (raw: ConnectionOptions) =>
  <A, E, R>(use: Effect.Effect<A, E, R>) =>
    Effect.flatMap(resolveConnection(raw), (connection) => Effect.provide(use, clientLayer(connection)))
