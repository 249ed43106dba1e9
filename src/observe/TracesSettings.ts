/**
 * Whether and where traces go: OpenTelemetry's standard variables, read through Config. Apart from
 * the exporter (Traces.ts) so that deciding costs a start nothing but these reads.
 */
import { Config, Option, type Redacted } from "effect"

const optional = (name: string) => Config.option(Config.nonEmptyString(name))
/** The signal's own variable first, then the general one, as the OTLP exporter specification says. */
const either = (specific: string, general: string) =>
  Config.map(Config.all([optional(specific), optional(general)]), ([a, b]) => Option.orElse(a, () => b))

/** `/v1/traces` under the endpoint, as the specification builds it; a traces endpoint is used as given. */
export const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, "")}/v1/traces`

export interface TracesSettings {
  readonly url: string
  readonly protocol: string
  readonly headers: Option.Option<Redacted.Redacted<string>>
  readonly serviceName: string
}

/** None (traces off) unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set. */
export const TracesConfig: Config.Config<Option.Option<TracesSettings>> = Config.map(
  Config.all({
    endpoint: optional("OTEL_EXPORTER_OTLP_ENDPOINT"),
    tracesEndpoint: optional("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    protocol: either("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"),
    headers: Config.option(Config.redacted(Config.nonEmptyString("OTEL_EXPORTER_OTLP_HEADERS"))),
    serviceName: Config.withDefault(Config.nonEmptyString("OTEL_SERVICE_NAME"), "payouts")
  }),
  (c) =>
    Option.map(Option.orElse(c.tracesEndpoint, () => Option.map(c.endpoint, tracesUrl)), (url) => ({
      url,
      protocol: Option.getOrElse(c.protocol, () => "http/protobuf"),
      headers: c.headers,
      serviceName: c.serviceName
    }))
)
