/**
 * Outcome webhooks: POST `{id, event, data: <status record>}` to the callback_url, retried with
 * exponential backoff on a non-2xx answer or none. Attempts are made by a fixed pool of senders
 * taking them from a queue; a delivery waiting for its next try sleeps apart, holding no sender.
 * (A semaphore with thousands of waiters wakes them all at every release: a run of 2,000 payouts
 * to a closed port grew the sandbox past 3 GiB.) Deliveries run in the sandbox's scope.
 */
import { HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Data, Deferred, Duration, Effect, FiberSet, Queue, Ref, Schedule, type Scope } from "effect"
import * as Crypto from "node:crypto"
import type { WebhookEvent } from "../api/Schemas.ts"
import { count, type FaultState } from "./FaultWorld.ts"
import { faultOf } from "./FaultSettings.ts"
import type { Txn } from "./State.ts"
import { statusRecordView } from "./Views.ts"

export interface WebhookOptions {
  readonly retryBase: Duration.DurationInput
  readonly maxAttempts: number
  /** An attempt fails when the receiver has not answered within this long. */
  readonly attemptTimeout: Duration.DurationInput
  /** When set, each webhook carries X-Sandbox-Signature: sha256=<HMAC-SHA256 of the raw body, hex>. */
  readonly secret?: string
  /** How long a reordered webhook waits for a later one to overtake it (real time). */
  readonly reorderHold: Duration.DurationInput
  /** Attempts under way at once, over all receivers; later ones wait their turn. */
  readonly maxInFlight: number
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  retryBase: Duration.millis(500),
  maxAttempts: 8,
  attemptTimeout: Duration.seconds(10),
  reorderHold: Duration.seconds(1),
  maxInFlight: 128
}

export const signature = (secret: string, rawBody: string) =>
  `sha256=${Crypto.createHmac("sha256", secret).update(rawBody).digest("hex")}`

class WebhookRefused extends Data.TaggedError("WebhookRefused")<{ readonly status: number }> {}

export const eventOf = (txn: Txn): typeof WebhookEvent.Encoded => ({
  id: `evt_${txn.reference}_${txn.status}`,
  event: `${txn.type}.${txn.status}`,
  data: statusRecordView(txn)
})

export const makeNotifier = (
  faults: FaultState,
  options: WebhookOptions
): Effect.Effect<(txns: ReadonlyArray<Txn>) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const deliveries = yield* FiberSet.make<void, never>()
    const client = NodeHttpClient.makeUndici(yield* NodeHttpClient.makeDispatcher)
    const schedule = Schedule.exponential(options.retryBase, 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(Math.max(0, options.maxAttempts - 1)))
    )
    /** Deliveries held back by webhook_reorder, sent after the next one (or after reorderHold). */
    const held = yield* Ref.make<ReadonlyArray<Effect.Effect<void>>>([])
    const releaseHeld = Effect.flatMap(Ref.getAndSet(held, []), (waiting) => Effect.forEach(waiting, (d) => d, { discard: true }))

    const refused = (status: number) =>
      Effect.zipRight(count(faults, "webhooks.refused"), Effect.fail(new WebhookRefused({ status })))
    const attempt = (request: HttpClientRequest.HttpClientRequest) =>
      count(faults, "webhooks.attempts").pipe(
        Effect.zipRight(client.execute(request)),
        // Read to the end so the connection is kept for the next webhook.
        Effect.tap((response) => Effect.ignore(response.arrayBuffer)),
        Effect.timeout(options.attemptTimeout),
        Effect.flatMap((response) => (response.status >= 200 && response.status < 300 ? Effect.void : refused(response.status)))
      )

    interface Pending {
      readonly request: HttpClientRequest.HttpClientRequest
      readonly retries: Schedule.ScheduleDriver<unknown, unknown, never>
      readonly done: Deferred.Deferred<void>
    }
    // Outcomes come in bursts (every payout due in a tick at once): unbounded, a slow receiver made the
    // sandbox open sockets until it ran out of file descriptors. So `maxInFlight` senders, no more.
    const attempts = yield* Queue.unbounded<Pending>()
    const tryOnce = (pending: Pending) =>
      attempt(pending.request).pipe(
        Effect.matchEffect({
          onSuccess: () => Effect.zipRight(count(faults, "webhooks.delivered"), Deferred.succeed(pending.done, undefined)),
          // The wait for the next try is the schedule's, in a fiber of its own: the sender goes on.
          onFailure: (error) =>
            FiberSet.run(
              deliveries,
              pending.retries.next(error).pipe(
                Effect.matchEffect({
                  onSuccess: () => Queue.offer(attempts, pending),
                  onFailure: () => Effect.zipRight(count(faults, "webhooks.gave_up"), Deferred.succeed(pending.done, undefined))
                })
              )
            )
        }),
        Effect.asVoid
      )
    yield* Effect.forkScoped(
      Effect.forEach(Array.from({ length: Math.max(1, options.maxInFlight) }), () => Effect.forever(Effect.flatMap(Queue.take(attempts), tryOnce)), {
        concurrency: "unbounded",
        discard: true
      })
    )

    const deliver = (url: string, id: string, raw: string) => {
      const request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(options.secret === undefined ? { "x-sandbox-event-id": id } : { "x-sandbox-event-id": id, "x-sandbox-signature": signature(options.secret, raw) }),
        HttpClientRequest.bodyText(raw, "application/json")
      )
      // Resolves once delivered or given up, as the reorder fault's "after the next one" needs.
      return Effect.gen(function* () {
        const done = yield* Deferred.make<void>()
        yield* Queue.offer(attempts, { request, retries: yield* Schedule.driver(schedule), done })
        yield* Deferred.await(done)
      })
    }

    /** The webhook faults' draws are made only for the faults set, so a seed replays the same requests. */
    const withFaults = (url: string, id: string, raw: string, endpoint: "payout" | "payin") =>
      Effect.gen(function* () {
        const { random, settings } = yield* Ref.get(faults)
        const delay = faultOf(settings, endpoint, "webhook_delay")
        if (delay !== undefined) yield* Effect.sleep(delay.min + (yield* random.next) * (delay.max - delay.min))
        const dup = faultOf(settings, endpoint, "webhook_dup") ?? 0
        const twice = dup > 0 && (yield* random.next) < dup
        if (twice) yield* count(faults, `${endpoint}.webhook_dup`)
        const delivery = Effect.zipRight(deliver(url, id, raw), twice ? deliver(url, id, raw) : Effect.void)
        const reorder = faultOf(settings, endpoint, "webhook_reorder") ?? 0
        if ((yield* Ref.get(held)).length === 0 && reorder > 0 && (yield* random.next) < reorder) {
          yield* count(faults, `${endpoint}.webhook_reorder`)
          yield* Ref.set(held, [delivery])
          yield* FiberSet.run(deliveries, Effect.zipRight(Effect.sleep(options.reorderHold), releaseHeld))
          return
        }
        yield* delivery
        yield* releaseHeld
      })

    const send = (txn: Txn) => {
      if (txn.callbackUrl === null || (txn.type !== "payout" && txn.type !== "payin")) return Effect.void
      const body = eventOf(txn)
      return FiberSet.run(deliveries, withFaults(txn.callbackUrl, body.id ?? "", JSON.stringify(body), txn.type))
    }

    return (txns) => Effect.forEach(txns, send, { discard: true })
  })
