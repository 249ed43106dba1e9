/**
 * Outcome webhooks: POST `{id, event, data: <status record>}` to the callback_url, retried with
 * exponential backoff on a non-2xx answer or none. Deliveries run in the sandbox's scope.
 */
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Duration, Effect, FiberSet, Schedule, Schema, type Scope } from "effect"
import { WebhookEvent } from "../api/Schemas.js"
import { count, type FaultState } from "./Context.js"
import { faultOf } from "./Faults.js"
import type { Txn } from "./State.js"
import { statusRecord } from "./Views.js"

export interface WebhookOptions {
  readonly retryBase: Duration.DurationInput
  readonly maxAttempts: number
  readonly attemptTimeout: Duration.DurationInput
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  retryBase: Duration.millis(500),
  maxAttempts: 8,
  attemptTimeout: Duration.seconds(10)
}

class WebhookRefused extends Data.TaggedError("WebhookRefused")<{ readonly status: number }> {}

export const eventOf = (txn: Txn) => {
  const event = new WebhookEvent({ id: `evt_${txn.reference}_${txn.status}`, event: `${txn.type}.${txn.status}`, data: statusRecord(txn) })
  return Schema.encodeSync(WebhookEvent)(event)
}

export const makeNotifier = (
  faults: FaultState,
  options: WebhookOptions
): Effect.Effect<(txns: ReadonlyArray<Txn>) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberSet.make()
    const client = yield* Effect.provide(HttpClient.HttpClient, FetchHttpClient.layer)
    const schedule = Schedule.exponential(options.retryBase, 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(Math.max(0, options.maxAttempts - 1)))
    )
    const attempt = (url: string, body: unknown) =>
      Effect.gen(function* () {
        count(faults.counters, "webhooks.attempts")
        const response = yield* client.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUnsafeJson(body)))
        yield* Effect.ignore(response.text)
        if (response.status < 200 || response.status >= 300) {
          count(faults.counters, "webhooks.refused")
          return yield* Effect.fail(new WebhookRefused({ status: response.status }))
        }
      }).pipe(Effect.timeout(options.attemptTimeout))

    const deliver = (url: string, body: unknown) =>
      attempt(url, body).pipe(
        Effect.retry(schedule),
        Effect.matchEffect({
          onSuccess: () => Effect.sync(() => count(faults.counters, "webhooks.delivered")),
          onFailure: () => Effect.sync(() => count(faults.counters, "webhooks.gave_up"))
        })
      )

    const send = (txn: Txn) => {
      if (txn.callbackUrl === null || (txn.type !== "payout" && txn.type !== "payin")) return Effect.void
      const url = txn.callbackUrl
      const body = eventOf(txn)
      const endpoint = txn.type
      return Effect.gen(function* () {
        const delay = faultOf(faults.settings, endpoint, "webhook_delay")
        if (delay !== undefined) yield* Effect.sleep(delay.min + (yield* faults.random.next) * (delay.max - delay.min))
        const dup = faultOf(faults.settings, endpoint, "webhook_dup") ?? 0
        const twice = dup > 0 && (yield* faults.random.next) < dup
        if (twice) count(faults.counters, `${endpoint}.webhook_dup`)
        yield* deliver(url, body)
        if (twice) yield* deliver(url, body)
      }).pipe(FiberSet.run(fibers), Effect.asVoid)
    }

    return (txns) => Effect.forEach(txns, send, { discard: true })
  })
