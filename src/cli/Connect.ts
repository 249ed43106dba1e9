/**
 * Wiring for the commands that talk to the service: a connection and client options -> PaymentClient.layer,
 * the one layer of a connection (the tests and the bench use it too).
 */
import { Effect } from "effect"
import { PaymentClient } from "../api/Client.ts"
import type { PaymentClientSettingsInput } from "../api/ClientConfig.ts"
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

export const clientLayer = (connection: Connection, options: ClientOptions = LOOKUP_CLIENT) =>
  PaymentClient.layer({ ...connection, ...options })

export const withClient =
  (raw: ConnectionOptions) =>
  <A, E, R>(use: Effect.Effect<A, E, R>) =>
    Effect.flatMap(resolveConnection(raw), (connection) => Effect.provide(use, clientLayer(connection)))
