/**
 * Outcome webhooks: POST `{id, event, data: <status record>}` to the callback_url, retried with
 * exponential backoff on a non-2xx answer or none. Deliveries run in the sandbox's scope.
 */
import { Data, Duration, Effect, FiberSet, Schedule, type Scope } from "effect"
import * as Crypto from "node:crypto"
import type { WebhookEvent } from "../api/Schemas.ts"
import { count, type FaultState } from "./Context.ts"
import { faultOf } from "./Faults.ts"
import { makeSlots } from "./Slots.ts"
import type { Txn } from "./State.ts"
import { statusRecordView } from "./Views.ts"
import { makeWebhookClient, type WebhookHeaders, type WebhookUnreachable } from "./WebhookPost.ts"

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

const isSuccess = (status: number) => status >= 200 && status < 300

export const makeNotifier = (
  faults: FaultState,
  options: WebhookOptions
): Effect.Effect<(txns: ReadonlyArray<Txn>) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Forks into the sandbox's scope from plain code too (a receiver's answer comes in a socket callback).
    const fork = yield* FiberSet.makeRuntime<never, void, never>()
    const client = yield* makeWebhookClient(Duration.toMillis(options.attemptTimeout))
    // Runs before the client's agents are destroyed: the attempts they cut short start no retry.
    let closed = false
    yield* Effect.addFinalizer(() => Effect.sync(() => void (closed = true)))
    const schedule = Schedule.exponential(options.retryBase, 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(Math.max(0, options.maxAttempts - 1)))
    )
    // Outcomes come in bursts (every payout due in a tick at once): unbounded, a slow receiver made the
    // sandbox open sockets until it ran out of file descriptors. A delivery waits for a slot before
    // its attempt (and its timeout) starts.
    const slots = makeSlots(options.maxInFlight)
    const headersOf = (id: string, raw: string): WebhookHeaders => {
      const headers: Record<string, string> = { "x-sandbox-event-id": id }
      if (options.secret !== undefined) headers["x-sandbox-signature"] = signature(options.secret, raw)
      return headers
    }
    const refused = (status: number) => {
      count(faults.counters, "webhooks.refused")
      return new WebhookRefused({ status })
    }
    const attempt = (url: string, id: string, raw: string) =>
      Effect.suspend(() => {
        count(faults.counters, "webhooks.attempts")
        return client.post(url, headersOf(id, raw), raw)
      }).pipe(
        Effect.flatMap((status) => (isSuccess(status) ? Effect.void : Effect.fail(refused(status)))),
        slots.withSlot
      )

    const retried = (attempts: Effect.Effect<void, WebhookRefused | WebhookUnreachable>) =>
      attempts.pipe(
        Effect.retry(schedule),
        Effect.matchEffect({
          onSuccess: () => Effect.sync(() => count(faults.counters, "webhooks.delivered")),
          onFailure: () => Effect.sync(() => count(faults.counters, "webhooks.gave_up"))
        })
      )

    const deliver = (url: string, id: string, raw: string) => retried(attempt(url, id, raw))

    /** The retries after a first attempt that failed outside a fiber: that failure is replayed into the schedule. */
    const deliverAfter = (first: WebhookRefused | WebhookUnreachable, url: string, id: string, raw: string) => {
      let replay = true
      return retried(Effect.suspend(() => {
        if (!replay) return attempt(url, id, raw)
        replay = false
        return Effect.fail(first)
      }))
    }

    /** Webhooks held back by webhook_reorder, released after the next one (or after reorderHold). */
    let held: Array<Effect.Effect<void>> = []
    const releaseHeld = Effect.suspend(() => {
      const waiting = held
      held = []
      return Effect.forEach(waiting, (d) => d, { discard: true })
    })

    /**
     * The common case (no webhook fault): the first attempt as a plain callback, with no fiber, retry
     * schedule or Effect per webhook; only a failed attempt (or no free slot) takes the Effect path,
     * whose delays, counters and order are the same.
     */
    const deliverNow = (url: string, id: string, raw: string) => {
      if (closed || !slots.tryTake()) {
        fork(Effect.zipRight(deliver(url, id, raw), releaseHeld))
        return
      }
      count(faults.counters, "webhooks.attempts")
      client.send(url, headersOf(id, raw), raw, (result) => {
        slots.release()
        if (closed) return
        if (typeof result === "number" && isSuccess(result)) {
          count(faults.counters, "webhooks.delivered")
          if (held.length > 0) fork(releaseHeld)
          return
        }
        const failure = typeof result === "number" ? refused(result) : result
        fork(Effect.zipRight(deliverAfter(failure, url, id, raw), releaseHeld))
      })
    }

    const withFaults = (url: string, id: string, raw: string, endpoint: "payout" | "payin") =>
      Effect.gen(function* () {
        const delay = faultOf(faults.settings, endpoint, "webhook_delay")
        if (delay !== undefined) yield* Effect.sleep(delay.min + (yield* faults.random.next) * (delay.max - delay.min))
        const dup = faultOf(faults.settings, endpoint, "webhook_dup") ?? 0
        const twice = dup > 0 && (yield* faults.random.next) < dup
        if (twice) count(faults.counters, `${endpoint}.webhook_dup`)
        const delivery = Effect.zipRight(deliver(url, id, raw), twice ? deliver(url, id, raw) : Effect.void)
        const reorder = faultOf(faults.settings, endpoint, "webhook_reorder") ?? 0
        if (held.length === 0 && reorder > 0 && (yield* faults.random.next) < reorder) {
          count(faults.counters, `${endpoint}.webhook_reorder`)
          held = [...held, delivery]
          fork(Effect.sleep(options.reorderHold).pipe(Effect.zipRight(releaseHeld)))
          return
        }
        yield* delivery
        yield* releaseHeld
      })

    const send = (txn: Txn) => {
      if (txn.callbackUrl === null || (txn.type !== "payout" && txn.type !== "payin")) return
      const url = txn.callbackUrl
      const body = eventOf(txn)
      const raw = JSON.stringify(body)
      const id = body.id ?? ""
      const endpoint = txn.type
      const settings = faults.settings
      // Without webhook faults (the common case, a thousand a second in the bench) skip their draws.
      if (
        faultOf(settings, endpoint, "webhook_delay") === undefined &&
        !((faultOf(settings, endpoint, "webhook_dup") ?? 0) > 0) &&
        !((faultOf(settings, endpoint, "webhook_reorder") ?? 0) > 0)
      ) {
        deliverNow(url, id, raw)
      } else {
        fork(withFaults(url, id, raw, endpoint))
      }
    }

    return (txns) => Effect.sync(() => txns.forEach(send))
  })
