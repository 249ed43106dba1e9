/**
 * OTLP traces (issue 34, item 5): with OTEL_EXPORTER_OTLP_ENDPOINT set, the binary's `Effect.fn`
 * spans reach a collector (a small OTLP/HTTP receiver here) over http/json and http/protobuf.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { payoutsDone, serviceOf, until } from "../jobs/cli.ts"
import { startSandbox } from "../kit/Sandbox.ts"

interface Export {
  readonly path: string
  readonly contentType: string
  readonly body: Buffer
}

/** A collector on an ephemeral port that keeps every POST it receives. */
const receiver = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ readonly server: Http.Server; readonly url: string; readonly received: Array<Export> }>((ok) => {
        const received: Array<Export> = []
        const server = Http.createServer((req, res) => {
          const parts: Array<Buffer> = []
          req.on("data", (part: Buffer) => parts.push(part))
          req.on("end", () => {
            received.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", body: Buffer.concat(parts) })
            res.writeHead(200, { "content-type": "application/json" }).end("{}")
          })
        })
        server.listen(0, "127.0.0.1", () => ok({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }))
      })
  ),
  ({ server }) => Effect.promise(() => new Promise<void>((ok) => server.close(() => ok())))
)

const spanNames = (body: Buffer): ReadonlyArray<string> =>
  JSON.parse(body.toString("utf8")).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans.map((span: any) => span.name)))

describe("OTLP traces", () => {
  it.scopedLive("payouts wallet exports its named spans over http/json, then http/protobuf", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const collector = yield* receiver

      const json = yield* payoutsDone(serviceOf(sandbox), ["wallet"], { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })
      expect(json.code).toBe(0)
      const names = () => collector.received.filter((e) => e.contentType.includes("json")).flatMap((e) => spanNames(e.body))
      yield* until("the command's spans at the collector", Effect.sync(() => names().includes("payouts.wallet") && names().includes("PaymentClient.wallets")))
      expect(collector.received.every((e) => e.path === "/v1/traces")).toBe(true)
      const resource = JSON.parse(collector.received[0].body.toString("utf8")).resourceSpans[0].resource
      expect(resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "payouts" } })

      const protobuf = yield* payoutsDone(serviceOf(sandbox), ["wallet"], { OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/` })
      expect(protobuf.code).toBe(0)
      const binary = () => collector.received.filter((e) => e.contentType === "application/x-protobuf")
      // Span names are protobuf strings: their UTF-8 bytes stand in the body as written.
      yield* until("the spans over protobuf", Effect.sync(() => binary().some((e) => e.body.includes("PaymentClient.wallets") && e.body.includes("payouts.wallet"))))
      expect(binary().every((e) => e.path === "/v1/traces")).toBe(true)
    }), 120_000)
})
