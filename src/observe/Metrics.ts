/**
 * The product's metrics (DESIGN 13), named as Prometheus asks: `payouts_` prefix, base units,
 * `_total` on counters. The provider's requests are Effect metrics, updated by the client
 * (api/Client.ts); the row and attention gauges are the store's figures, read when scraped
 * (Prometheus.ts), so they agree with the store whichever process changed it.
 */
import { Effect, FiberRef, Metric, MetricBoundaries, MetricKey, MetricLabel } from "effect"

/** How a request to the service ended: its classification (api/Classify.ts), or why there was no answer. */
export const OUTCOMES = [
  "ok",
  "rejected",
  "not_found",
  "auth_error",
  "rate_limited",
  "server_error",
  "unexpected",
  "timeout",
  "too_large",
  "network"
] as const
export type Outcome = (typeof OUTCOMES)[number]

export const providerRequestsKey = MetricKey.counter("payouts_provider_requests_total", {
  description: "Requests sent to the payment service, by route template and outcome.",
  incremental: true
})

/** Seconds from the request leaving (after the rate gate) to its whole answer read, or its failure. */
export const providerDurationKey = MetricKey.histogram(
  "payouts_provider_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  "Time the payment service took to answer a request, by route template."
)

export const rowsKey = MetricKey.gauge("payouts_rows", { description: "Rows in the state store, by state, across the account's batches." })
export const attentionBatchesKey = MetricKey.gauge("payouts_attention_batches", {
  description: "Batches of the account with a row that needs a person (payouts resolve)."
})
export const unknownRowsKey = MetricKey.gauge("payouts_unknown_rows", {
  description: "Rows whose payout may or may not exist: sent without an answer that proves either."
})

/** One route's request metrics. */
export interface RouteMetrics {
  readonly requests: Readonly<Record<Outcome, Metric.Metric.Counter<number>>>
  readonly duration: Metric.Metric.Histogram<number>
}

/**
 * The metrics of one route template (`GET /payment/status/{reference}`, never a raw reference),
 * tagged once when the client is built: a tagged key is then found once and kept by its metric,
 * where `Metric.tagged` at each request would build a key and look it up every time.
 */
export const routeMetrics = (route: string): RouteMetrics => {
  const endpoint = MetricLabel.make("endpoint", route)
  const requests = Object.fromEntries(
    OUTCOMES.map((outcome) => [outcome, Metric.fromMetricKey(MetricKey.taggedWithLabels(providerRequestsKey, [endpoint, MetricLabel.make("outcome", outcome)]))])
  ) as Record<Outcome, Metric.Metric.Counter<number>>
  return { requests, duration: Metric.fromMetricKey(MetricKey.taggedWithLabels(providerDurationKey, [endpoint])) }
}

/**
 * One request counted and timed, in one step: the two metrics' own updates under the fiber's metric
 * labels, read once: two `Metric.update`s cost about 2 us a request, this about a quarter of that.
 */
export const recordRequest = (route: RouteMetrics, outcome: Outcome, seconds: number) =>
  FiberRef.getWith(FiberRef.currentMetricLabels, (labels) =>
    Effect.sync(() => {
      route.requests[outcome].unsafeUpdate(1, labels)
      route.duration.unsafeUpdate(seconds, labels)
    }))
