/**
 * Outcome webhooks: POST `{id, event, data: <status record>}` to the callback_url, retried with
 * exponential backoff on a non-2xx answer or none. Deliveries run in the sandbox's scope.
 */
import { Data, Duration, Effect, FiberSet, Ref, Schedule, type Scope } from "effect"
import * as Crypto from "node:crypto"
import type { WebhookEvent } from "../api/Schemas.ts"
import { count, type FaultState } from "./Context.ts"
import { faultOf } from "./Faults.ts"
import type { Txn } from "./State.ts"
import { statusRecordView } from "./Views.ts"
import { makePostJson } from "./WebhookPost.ts"

export interface WebhookOptions {
  readonly retryBase: Duration.DurationInput
  readonly maxAttempts: number
  /** An attempt fails after this long without a byte from the receiver. */
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
    const fibers = yield* FiberSet.make()
    const post = yield* makePostJson(Duration.toMillis(options.attemptTimeout))
    const schedule = Schedule.exponential(options.retryBase, 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(Math.max(0, options.maxAttempts - 1)))
    )
    // Outcomes come in bursts (every payout due in a tick at once): unbounded, a slow receiver made the
    // sandbox open sockets until it ran out of file descriptors. A delivery waits for a permit before
    // its attempt (and its timeout) starts.
    const inFlight = yield* Effect.makeSemaphore(options.maxInFlight)
    const attempt = (url: string, id: string, raw: string) =>
      Effect.suspend(() => {
        count(faults.counters, "webhooks.attempts")
        const headers: Record<string, string> = { "x-sandbox-event-id": id }
        if (options.secret !== undefined) headers["x-sandbox-signature"] = signature(options.secret, raw)
        return post(url, headers, raw)
      }).pipe(
        Effect.flatMap((status) => {
          if (status >= 200 && status < 300) return Effect.void
          count(faults.counters, "webhooks.refused")
          return Effect.fail(new WebhookRefused({ status }))
        }),
        inFlight.withPermits(1)
      )

    const deliver = (url: string, id: string, raw: string) =>
      attempt(url, id, raw).pipe(
        Effect.retry(schedule),
        Effect.matchEffect({
          onSuccess: () => Effect.sync(() => count(faults.counters, "webhooks.delivered")),
          onFailure: () => Effect.sync(() => count(faults.counters, "webhooks.gave_up"))
        })
      )

    /** Webhooks held back by webhook_reorder, released after the next one (or after reorderHold). */
    const held = yield* Ref.make<ReadonlyArray<Effect.Effect<void>>>([])
    const releaseHeld = Effect.flatMap(Ref.getAndSet(held, []), (waiting) => Effect.forEach(waiting, (d) => d, { discard: true }))

    const send = (txn: Txn) => {
      if (txn.callbackUrl === null || (txn.type !== "payout" && txn.type !== "payin")) return Effect.void
      const url = txn.callbackUrl
      const body = eventOf(txn)
      const raw = JSON.stringify(body)
      const endpoint = txn.type
      const settings = faults.settings
      // Without webhook faults (the common case, a thousand a second in the bench) skip their draws.
      if (
        faultOf(settings, endpoint, "webhook_delay") === undefined &&
        !((faultOf(settings, endpoint, "webhook_dup") ?? 0) > 0) &&
        !((faultOf(settings, endpoint, "webhook_reorder") ?? 0) > 0)
      ) {
        return Effect.zipRight(deliver(url, body.id ?? "", raw), releaseHeld).pipe(FiberSet.run(fibers), Effect.asVoid)
      }
      return Effect.gen(function* () {
        const delay = faultOf(faults.settings, endpoint, "webhook_delay")
        if (delay !== undefined) yield* Effect.sleep(delay.min + (yield* faults.random.next) * (delay.max - delay.min))
        const dup = faultOf(faults.settings, endpoint, "webhook_dup") ?? 0
        const twice = dup > 0 && (yield* faults.random.next) < dup
        if (twice) count(faults.counters, `${endpoint}.webhook_dup`)
        const delivery = Effect.zipRight(deliver(url, body.id ?? "", raw), twice ? deliver(url, body.id ?? "", raw) : Effect.void)
        const reorder = faultOf(faults.settings, endpoint, "webhook_reorder") ?? 0
        const nothingHeld = (yield* Ref.get(held)).length === 0
        if (nothingHeld && reorder > 0 && (yield* faults.random.next) < reorder) {
          count(faults.counters, `${endpoint}.webhook_reorder`)
          yield* Ref.update(held, (waiting) => [...waiting, delivery])
          yield* Effect.sleep(options.reorderHold).pipe(Effect.zipRight(releaseHeld), FiberSet.run(fibers))
          return
        }
        yield* delivery
        yield* releaseHeld
      }).pipe(FiberSet.run(fibers), Effect.asVoid)
    }

    return (txns) => Effect.forEach(txns, send, { discard: true })
  })
