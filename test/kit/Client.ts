/** The one client layer of the tests: the commands' own (cli/Connect), with short timeouts and retries. */
import { Redacted } from "effect"
import { type ClientOptions, clientLayer as connectLayer } from "../../src/cli/Connect.ts"
import type { SandboxInfo } from "../../src/sandbox/Sandbox.ts"

export const clientLayer = (service: Pick<SandboxInfo, "baseUrl" | "key" | "secret">, options: ClientOptions = {}) =>
  connectLayer(
    { baseUrl: service.baseUrl, apiKey: Redacted.make(service.key), apiSecret: Redacted.make(service.secret) },
    { requestTimeout: "5 seconds", getRetry: { base: "20 millis", times: 4 }, ...options }
  )
