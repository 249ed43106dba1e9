/**
 * The operations' spans (`Effect.fn` names) exported over OTLP/HTTP (DESIGN 13), with
 * @effect/opentelemetry's own exporter on @effect/platform's HttpClient: no OpenTelemetry SDK is
 * loaded. Imported only when traces are on (cli/Traces.ts), so an ordinary start pays nothing.
 */
import { FetchHttpClient } from "@effect/platform"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Effect, Layer, Option, Redacted } from "effect"
import type { TracesSettings } from "./TracesSettings.ts"

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs, comma separated, values percent-encoded. */
export const parseHeaders = (text: string): Record<string, string> =>
  Object.fromEntries(
    text.split(",").flatMap((pair) => {
      const at = pair.indexOf("=")
      if (at <= 0) return []
      const value = pair.slice(at + 1).trim()
      let decoded = value
      try {
        decoded = decodeURIComponent(value)
      } catch {
        // Not percent-encoded after all: sent as written.
      }
      return [[pair.slice(0, at).trim().toLowerCase(), decoded] as const]
    })
  )

/**
 * A tracer that exports every span to the collector in batches (every 5 s, and at the end: the
 * command then waits at most 3 s for the last batch). A protocol other than OTLP/HTTP's two (gRPC)
 * is said once, and protobuf used.
 */
export const otlpTraces = (settings: TracesSettings, version: string): Layer.Layer<never> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const json = settings.protocol === "http/json"
      if (!json && settings.protocol !== "http/protobuf") {
        yield* Effect.logWarning(`OTEL_EXPORTER_OTLP_PROTOCOL=${settings.protocol}: payouts exports traces over http/protobuf or http/json; using http/protobuf`)
      }
      return OtlpTracer.layer({
        url: settings.url,
        resource: { serviceName: settings.serviceName, serviceVersion: version },
        headers: Option.match(settings.headers, { onNone: () => undefined, onSome: (h) => parseHeaders(Redacted.value(h)) }),
        shutdownTimeout: "3 seconds"
      }).pipe(
        Layer.provide(json ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
        Layer.provide(FetchHttpClient.layer)
      )
    })
  )
