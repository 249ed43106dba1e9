/**
 * `watch --health`'s port answers GET /metrics (issue 34, item 5): after a batch is paid through the
 * real binary, the scrape parses, its row gauge agrees with the store, its payout count with the
 * rows paid, and its histograms are cumulative.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { AccountId } from "../../src/domain/Ids.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { FAST, healthUrl, payouts, serviceOf, until } from "../jobs/cli.ts"
import { accountOf, admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { families, histogramOf, series, typeOf } from "./exposition.ts"

const ROWS = 6
const PAYOUT = "POST /payments/payout/mobile-money"

const completedInStore = (state: string, account: string) =>
  Effect.flatMap(StateStore, (store) => store.account(AccountId.make(account)).listBatches()).pipe(
    Effect.map((batches) => batches.reduce((n, b) => n + b.counts.completed, 0)),
    Effect.provide(Layer.merge(withHandles(SqliteStateStore.layer({ filename: state })), NodeContext.layer))
  )

const scrape = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
  })

const value = (text: string, name: string, labels: Readonly<Record<string, string>> = {}) => {
  const found = series(text, name, labels)
  return found.length === 1 ? found[0].value : undefined
}

describe("GET /metrics on watch --health", () => {
  it.scopedLive("rows by state agree with the store; POST /payouts ok counts the rows paid; buckets are cumulative", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const base = tempDir("payouts-metrics-")
      const root = join(base, "jobs")
      const state = join(base, "state.db")
      mkdirSync(root, { recursive: true })
      const daemon = yield* payouts(serviceOf(sandbox), ["watch", root, "--state", state, ...FAST, "--health", "127.0.0.1:0"])
      const url = (yield* healthUrl(() => `${daemon.stdout()}${daemon.stderr()}`)).replace(/\/health$/, "/metrics")

      // Before any batch: the process's metrics only (or none yet), still valid text.
      const early = yield* scrape(url)
      expect(early.status).toBe(200)
      expect(early.type).toBe("text/plain; version=0.0.4; charset=utf-8")
      expect(() => families(early.text)).not.toThrow()

      writeCsv(root, "pay.csv", Array.from({ length: ROWS }, (_, i) => ({ id: `M-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) })))
      yield* until("the batch done", Effect.sync(() => existsSync(join(root, "done", "pay.summary.json"))), 120_000)
      const account = accountOf(sandbox)
      expect(yield* completedInStore(state, account)).toBe(ROWS)

      // The scrape reads the store as it is: once the batch is done, it says what the store says.
      yield* until("the scrape counting the rows completed", Effect.map(scrape(url), (s) => value(s.text, "payouts_rows", { state: "completed" }) === ROWS))
      const { text } = yield* scrape(url)
      expect(typeOf(text, "payouts_rows")).toBe("gauge")
      expect(typeOf(text, "payouts_attention_batches")).toBe("gauge")
      expect(typeOf(text, "payouts_unknown_rows")).toBe("gauge")
      expect(typeOf(text, "payouts_provider_requests_total")).toBe("counter")
      expect(typeOf(text, "payouts_provider_request_duration_seconds")).toBe("histogram")
      expect(value(text, "payouts_rows", { state: "completed" })).toBe(yield* completedInStore(state, account))
      expect(value(text, "payouts_rows", { state: "unknown" })).toBe(0)
      expect(value(text, "payouts_unknown_rows")).toBe(0)
      expect(value(text, "payouts_attention_batches")).toBe(0)

      // Every payout the service holds was one POST answered ok, counted once.
      const paid = (yield* admin(sandbox).payouts).length
      expect(paid).toBe(ROWS)
      expect(value(text, "payouts_provider_requests_total", { endpoint: PAYOUT, outcome: "ok" })).toBe(paid)
      // Endpoints are route templates, never a raw reference.
      for (const m of series(text, "payouts_provider_requests_total")) expect(m.labels?.endpoint).toMatch(/^(GET|POST) \/[a-z/{}-]*$/)

      const histogram = histogramOf(text, "payouts_provider_request_duration_seconds", PAYOUT)
      expect(histogram.buckets.at(-1)?.[0]).toBe(Infinity)
      expect(histogram.buckets.at(-1)?.[1]).toBe(histogram.count)
      for (let i = 1; i < histogram.buckets.length; i++) expect(histogram.buckets[i][1]).toBeGreaterThanOrEqual(histogram.buckets[i - 1][1])
      expect(histogram.count).toBeGreaterThanOrEqual(paid)
    }), 300_000)
})
