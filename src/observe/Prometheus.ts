/**
 * `GET /metrics` in the Prometheus text exposition format (version 0.0.4): the process's Effect
 * metrics (Metric.snapshot) and the account's row gauges read from the state store at each scrape.
 * Served on the console and on `watch --health`'s port; the same handler for both.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, MetricKey, MetricPair, MetricState, Metric, Option } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import { needsPerson } from "../store/Model.ts"
import { emptyCounts, ROW_STATES } from "../store/RowState.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { attentionBatchesKey, rowsKey, unknownRowsKey } from "./Metrics.ts"

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

const VALID_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const escapeLabel = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

/** A sample's value as Prometheus reads floats: +Inf, -Inf and NaN spelled its way. */
const value = (n: number | bigint) =>
  typeof n === "bigint" ? n.toString() : Number.isNaN(n) ? "NaN" : n === Infinity ? "+Inf" : n === -Infinity ? "-Inf" : String(n)

const labels = (tags: ReadonlyArray<readonly [string, string]>) =>
  tags.length === 0 ? "" : `{${tags.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`

const tagsOf = (key: MetricKey.MetricKey.Untyped) => key.tags.map((t) => [t.key, t.value] as const)

/** The sample lines of one series, or none for a kind the text format has no type for here. */
const samples = (name: string, key: MetricKey.MetricKey.Untyped, state: MetricState.MetricState.Untyped): ReadonlyArray<string> => {
  const tags = tagsOf(key)
  if (MetricState.isCounterState(state)) return [`${name}${labels(tags)} ${value(state.count)}`]
  if (MetricState.isGaugeState(state)) return [`${name}${labels(tags)} ${value(state.value)}`]
  if (MetricState.isHistogramState(state)) {
    // Effect's buckets are cumulative and end at +Inf when built with MetricBoundaries; one is added otherwise.
    const buckets = state.buckets.some(([le]) => le === Infinity) ? state.buckets : [...state.buckets, [Infinity, state.count] as const]
    return [
      ...buckets.map(([le, count]) => `${name}_bucket${labels([...tags, ["le", value(le)]])} ${value(count)}`),
      `${name}_sum${labels(tags)} ${value(state.sum)}`,
      `${name}_count${labels(tags)} ${value(state.count)}`
    ]
  }
  return []
}

const typeOf = (state: MetricState.MetricState.Untyped) =>
  MetricState.isCounterState(state) ? "counter" : MetricState.isGaugeState(state) ? "gauge" : MetricState.isHistogramState(state) ? "histogram" : undefined

/**
 * The exposition text of these metrics: one HELP and TYPE per family, its series sorted by labels.
 * Families of a kind the format cannot say here (frequency, summary: we define none) and names it
 * refuses (another library's) are left out rather than break the whole scrape.
 */
export const renderPrometheus = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, Array<MetricPair.MetricPair.Untyped>>()
  for (const pair of pairs) {
    const name = pair.metricKey.name
    if (!VALID_NAME.test(name) || typeOf(pair.metricState) === undefined) continue
    families.set(name, [...(families.get(name) ?? []), pair])
  }
  const lines: Array<string> = []
  for (const name of [...families.keys()].sort()) {
    const family = families.get(name) ?? []
    const type = typeOf(family[0].metricState)
    const help = Option.getOrElse(family[0].metricKey.description, () => name)
    lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`)
    const series = family
      .filter((p) => typeOf(p.metricState) === type)
      .map((p) => ({ sort: labels(tagsOf(p.metricKey)), lines: samples(name, p.metricKey, p.metricState) }))
      .sort((a, b) => (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0))
    for (const s of series) lines.push(...s.lines)
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`
}

const gauge = (key: MetricKey.MetricKey.Gauge<number>, n: number) => MetricPair.unsafeMake(key, MetricState.gauge(n))

/**
 * The account's gauges as the store holds them now: rows by state across its batches, the batches
 * with a row that needs a person (store/Model.ts `needsPerson`: unknown, or under an alarm),
 * and the unknown rows. Read at scrape time, so every process's work shows.
 */
export const storeGauges = Effect.fn("Metrics.storeGauges")(function* (accountId: AccountId) {
  const mirror = yield* MirrorStore
  const batches = yield* (yield* Batches).listBatches(accountId)
  const rows = emptyCounts()
  for (const batch of batches) for (const state of ROW_STATES) rows[state] += batch.counts[state]
  // A batch without unknown rows needs a person only for an alarm: its flagged rows are read then only.
  const attention = yield* Effect.filter(batches, (batch) =>
    batch.counts.unknown > 0
      ? Effect.succeed(true)
      : Effect.map(mirror.flaggedRows(accountId, batch.batchId), (flagged) => flagged.some(needsPerson)))
  return [
    ...ROW_STATES.map((state) => gauge(MetricKey.tagged(rowsKey, "state", state), rows[state])),
    gauge(attentionBatchesKey, attention.length),
    gauge(unknownRowsKey, rows.unknown)
  ]
})

/**
 * The handler of `GET /metrics`, for an HttpRouter: mount it as
 * `HttpRouter.get("/metrics", metricsRoute(accountId))` where the store is provided. Without an
 * account yet (a daemon still asking the service who it is), only the process's metrics are shown.
 * A store that cannot be read fails the scrape (503), which Prometheus records as the target down.
 */
export const metricsRoute = (accountId: AccountId | undefined) =>
  Effect.gen(function* () {
    const processMetrics = yield* Metric.snapshot
    const store = accountId === undefined ? [] : yield* storeGauges(accountId)
    return HttpServerResponse.text(renderPrometheus([...processMetrics, ...store]), { contentType: CONTENT_TYPE })
  }).pipe(
    Effect.catchTag("StoreError", (error) =>
      Effect.as(
        Effect.logWarning(`/metrics: the state store could not be read (${error.message})`),
        HttpServerResponse.text(`the state store could not be read\n`, { status: 503, contentType: "text/plain; charset=utf-8" })
      ))
  )
