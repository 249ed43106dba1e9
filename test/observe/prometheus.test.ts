/** The exposition text read back by a real parser of the format: families, escaping, cumulative histograms. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Metric, MetricBoundaries, MetricKey } from "effect"
import { families, histogramOf, series, typeOf } from "./exposition.ts"
import { renderPrometheus } from "../../src/observe/Prometheus.ts"
import { OUTCOMES, recordRequest, routeMetrics } from "../../src/observe/Metrics.ts"

describe("Prometheus text (issue 34, item 5)", () => {
  it.effect("a route's requests by outcome and its durations parse, with cumulative buckets ending at +Inf", () =>
    Effect.gen(function* () {
      // A route no other test uses: the registry is the process's.
      const route = routeMetrics("GET /test/prometheus/{id}")
      yield* recordRequest(route, "ok", 0.003)
      yield* recordRequest(route, "ok", 0.2)
      yield* recordRequest(route, "timeout", 12)
      const text = renderPrometheus(yield* Metric.snapshot)
      expect(typeOf(text, "payouts_provider_requests_total")).toBe("counter")
      expect(typeOf(text, "payouts_provider_request_duration_seconds")).toBe("histogram")
      const endpoint = "GET /test/prometheus/{id}"
      expect(series(text, "payouts_provider_requests_total", { endpoint, outcome: "ok" }).map((m) => m.value)).toEqual([2])
      expect(series(text, "payouts_provider_requests_total", { endpoint, outcome: "timeout" }).map((m) => m.value)).toEqual([1])
      const histogram = histogramOf(text, "payouts_provider_request_duration_seconds", endpoint)
      const buckets = histogram.buckets
      expect(buckets.at(-1)).toEqual([Infinity, 3])
      for (let i = 1; i < buckets.length; i++) expect(buckets[i][1]).toBeGreaterThanOrEqual(buckets[i - 1][1])
      expect(buckets.find(([le]) => le === 0.005)?.[1]).toBe(1)
      expect(buckets.find(([le]) => le === 0.25)?.[1]).toBe(2)
      expect(Number(histogram.count)).toBe(3)
      expect(Number(histogram.sum)).toBeCloseTo(12.203)
      expect(OUTCOMES).toContain("rate_limited")
    }))

  it.effect("label values and help text are escaped; names the format refuses are left out", () =>
    Effect.gen(function* () {
      const odd = 'a "quoted" \\ back\nslash'
      const gauge = Metric.fromMetricKey(MetricKey.gauge("payouts_test_escaping", { description: "Help with a \\ and\na newline." }).pipe(MetricKey.tagged("value", odd)))
      yield* Metric.set(gauge, 7)
      yield* Metric.increment(Metric.counter("test.dotted.name"))
      yield* Metric.update(Metric.histogram("payouts_test_plain_histogram", MetricBoundaries.fromIterable([1, 2])), 1.5)
      const text = renderPrometheus(yield* Metric.snapshot)
      expect(text).not.toContain("test.dotted.name")
      expect(series(text, "payouts_test_escaping").map((m) => [m.labels.value, m.value])).toEqual([[odd, 7]])
      expect(families(text).find((f) => f.name === "payouts_test_escaping")?.help).toBe("Help with a \\ and\na newline.")
      expect(text).toContain('payouts_test_plain_histogram_bucket{le="+Inf"} 1')
      expect(text.split("\n").filter((l) => l.startsWith("# TYPE payouts_test_plain_histogram ")).length).toBe(1)
    }))
})
