/**
 * Wiring for the commands that talk to the service: a connection and client options -> PaymentClient.
 * The one place the client's layer is assembled; the tests and the bench build theirs with it too.
 */
import { Effect, Layer } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { PaymentClientConfig, type PaymentClientSettingsInput } from "../api/ClientConfig.ts"
import { RequestGate } from "../api/RequestGate.ts"
import * as UndiciExchange from "../api/UndiciExchange.ts"
import { type Connection, type ConnectionOptions, resolveConnection } from "./Settings.ts"

export interface ClientOptions {
  readonly requestTimeout?: PaymentClientSettingsInput["requestTimeout"]
  readonly getRetry?: PaymentClientSettingsInput["getRetry"]
  /** Requests per second to the service, all calls together; undefined: adaptive. */
  readonly ratePerSecond?: number | undefined
}

/** An interactive look-up retries a little, not for the 45 s a batch run tolerates. */
export const LOOKUP_CLIENT: ClientOptions = {
  requestTimeout: "20 seconds",
  getRetry: { times: 2, base: "300 millis", maxElapsed: "5 seconds" }
}

export const clientLayer = (connection: Connection, options: ClientOptions = LOOKUP_CLIENT) => {
  const { ratePerSecond, ...settings } = options
  return PaymentClient.Default.pipe(
    Layer.provide(PaymentClientConfig.layer({ ...connection, ...settings })),
    // Kept in the output: a run shares it with the account's other workers once the account is known.
    Layer.provideMerge(RequestGate.layer(ratePerSecond === undefined ? {} : { ratePerSecond })),
    // undici with the client's own request path (its HttpClient too, for the rest): UndiciExchange.ts.
    Layer.provide(UndiciExchange.layer)
  )
}

export const withClient =
  (raw: ConnectionOptions) =>
  <A, E, R>(use: Effect.Effect<A, E, R>) =>
    Effect.flatMap(resolveConnection(raw), (connection) => Effect.provide(use, clientLayer(connection)))
