/**
 * The row gauges read from the store (issue 34, item 5): rows by state across the account's batches,
 * the batches needing a person (an unknown row, or an alarm), the unknown rows; another account's
 * rows are not counted. Served by `metricsRoute` mounted in an HttpRouter, as the console mounts it.
 */
import { HttpClient, HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { BatchId } from "../../src/domain/Ids.ts"
import { metricsRoute } from "../../src/observe/Prometheus.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { handlesOf } from "../kit/Store.ts"
import { ACCOUNT, newBatch, OTHER_ACCOUNT, rowInputs, tempDbPath } from "../store/fixtures.ts"
import { series, typeOf } from "./exposition.ts"

const value = (text: string, name: string, labels: Readonly<Record<string, string>> = {}) => series(text, name, labels).map((m) => Number(m.value))

describe("the store's gauges on /metrics", () => {
  it.scopedLive("rows by state, attention batches and unknown rows, for the account served only", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(SqliteStateStore.layer({ filename: yield* tempDbPath }))
      const store = handlesOf(context)
      // b1: one row sent without an answer (unknown), one claimed, two validated.
      yield* store.createBatch(newBatch("b1"), rowInputs(4))
      const b1 = store.batch(ACCOUNT, BatchId.make("b1"))
      yield* b1.claimRows({ idxs: [0, 1] })
      yield* b1.recordTransition({ idx: 0, to: "unknown", from: ["submitting"], error: "timeout after send", source: "response" })
      // b2: no unknown row, but an alarm on one: a person must look.
      yield* store.createBatch(newBatch("b2"), rowInputs(3))
      yield* store.batch(ACCOUNT, BatchId.make("b2")).setRowAlarm(1, "two payouts carry its token", ["TXN-A", "TXN-B"])
      // b3: nothing to look at. Another account's unknown row is not this account's.
      yield* store.createBatch(newBatch("b3"), rowInputs(2))
      yield* store.createBatch(newBatch("x1", OTHER_ACCOUNT), rowInputs(2))
      const x1 = store.batch(OTHER_ACCOUNT, BatchId.make("x1"))
      yield* x1.claimRows({ idxs: [0] })
      yield* x1.recordTransition({ idx: 0, to: "unknown", from: ["submitting"], source: "response" })

      const app = HttpRouter.empty.pipe(HttpRouter.get("/metrics", metricsRoute(ACCOUNT)))
      yield* HttpServer.serveEffect(app).pipe(Effect.provide(context))
      const response = yield* HttpClient.get("/metrics")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8")
      const text = yield* response.text
      expect(typeOf(text, "payouts_rows")).toBe("gauge")
      expect(value(text, "payouts_rows", { state: "validated" })).toEqual([7])
      expect(value(text, "payouts_rows", { state: "submitting" })).toEqual([1])
      expect(value(text, "payouts_rows", { state: "unknown" })).toEqual([1])
      expect(value(text, "payouts_rows", { state: "completed" })).toEqual([0])
      expect(value(text, "payouts_unknown_rows")).toEqual([1])
      expect(value(text, "payouts_attention_batches")).toEqual([2])
    }).pipe(Effect.provide(Layer.fresh(NodeHttpServer.layerTest))))
})
