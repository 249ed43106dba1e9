/**
 * The sandbox's webhook senders: a fixed pool (webhookMaxInFlight) however many outcomes come at once,
 * and a delivery waiting for its next try holds no sender. Every delivery ends delivered or given up,
 * after exactly its attempts, even by the hundred towards a port where nobody listens.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { eventually, payout, sandbox } from "../kit/Sandbox.ts"

/** A receiver that answers each webhook after `holdMs`, counting how many it holds at once. */
const slowReceiver = (holdMs: number) =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; url: string; seen: { now: number; most: number; total: number } }>((resume) => {
      const seen = { now: 0, most: 0, total: 0 }
      const server = Http.createServer((req, res) => {
        seen.now += 1
        seen.most = Math.max(seen.most, seen.now)
        req.resume()
        req.on("end", () =>
          setTimeout(() => {
            seen.now -= 1
            seen.total += 1
            res.writeHead(200, { "content-type": "application/json" }).end("{}")
          }, holdMs))
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, seen })))
    }),
    ({ server }) => Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  )

/** A port nobody listens on (bound, then closed). */
const closedPort = Effect.async<number>((resume) => {
  const server = Http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const counters = (api: Effect.Effect.Success<ReturnType<typeof sandbox>>) => Effect.map(api.get("/__sandbox/faults"), (r) => r.json.counters as Record<string, number>)

describe("webhook senders", () => {
  it.scopedLive("never more attempts at once than the pool, and every webhook delivered", () =>
    Effect.gen(function* () {
      const hooks = yield* slowReceiver(50)
      const api = yield* sandbox({ timeScale: 3_600, payoutDelaySeconds: 1, webhookMaxInFlight: 3 })
      const n = 24
      yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => payout(api, { callback_url: hooks.url, description: `Settlement ${i}` }), { concurrency: 8, discard: true })
      yield* eventually(Effect.flatMap(counters(api), (c) => ((c["webhooks.delivered"] ?? 0) >= n ? Effect.void : Effect.fail("not yet"))), 30_000)
      expect(hooks.seen.most).toBeLessThanOrEqual(3)
      expect(hooks.seen.total).toBe(n)
    }), 60_000)

  it.scopedLive("hundreds of webhooks to a closed port each end given up after their attempts", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const api = yield* sandbox({ timeScale: 3_600, payoutDelaySeconds: 1, webhookRetryMillis: 5, webhookMaxAttempts: 3, webhookMaxInFlight: 4 })
      const n = 300
      yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => payout(api, { callback_url: `http://127.0.0.1:${port}/webhooks`, description: `Settlement ${i}` }), { concurrency: 16, discard: true })
      yield* eventually(Effect.flatMap(counters(api), (c) => ((c["webhooks.gave_up"] ?? 0) >= n ? Effect.void : Effect.fail("not yet"))), 60_000)
      const c = yield* counters(api)
      expect({ gaveUp: c["webhooks.gave_up"], attempts: c["webhooks.attempts"], delivered: c["webhooks.delivered"] ?? 0 }).toEqual({ gaveUp: n, attempts: 3 * n, delivered: 0 })
    }), 90_000)
})
