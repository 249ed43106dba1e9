/**
 * Traces (DESIGN 13): with OTEL_EXPORTER_OTLP_ENDPOINT set, every `Effect.fn` span is exported over
 * OTLP (observe/Traces.ts, a chunk of its own loaded only then). Otherwise the tracer is off: spans
 * are no-ops, as docs/PERFORMANCE.md measures the orchestrator's cost with them.
 */
import { Effect, Option } from "effect"
import { TracesConfig } from "../observe/TracesSettings.ts"

export const withTraces = (version: string) => <A, E, R>(program: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.orElseSucceed(TracesConfig, () => Option.none()), (settings) =>
    Option.isNone(settings)
      ? Effect.withTracerEnabled(program, false)
      : Effect.flatMap(Effect.promise(() => import("../observe/Traces.ts")), (traces) => Effect.provide(program, traces.otlpTraces(settings.value, version))))
