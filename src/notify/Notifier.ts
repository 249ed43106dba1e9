/**
 * `--notify`: a signed JSON POST when a batch ends done, rejected, paused or under alarm, or waits for
 * approval. Notifying never blocks or fails a run: events go into a bounded queue that a background
 * fiber delivers, each retried with backoff a bounded number of times; at the end the queue gets a
 * short, bounded time to empty. Without `--notify` every event is dropped (the default).
 */
import { HttpBody, HttpClient, type HttpClientError } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Clock, Context, Data, Duration, Effect, Layer, Option, Queue, Schedule, Stream, SubscriptionRef } from "effect"
import { randomUUID } from "node:crypto"
import { notifyTarget, type NotifyTarget } from "./NotifyConfig.ts"
import { bodyOf, type EventType, type Notification, notificationOf } from "./Payload.ts"
import { signedHeaders } from "./Signature.ts"

export interface NotifierShape {
  /** Queues the notification of `type` for a run's summary; returns at once. */
  readonly send: (type: EventType, summary: unknown) => Effect.Effect<void>
}

export class Notifier extends Context.Reference<Notifier>()("notify/Notifier", {
  defaultValue: (): NotifierShape => ({ send: () => Effect.void })
}) {}

export const notify = (type: EventType, summary: unknown): Effect.Effect<void> => Effect.flatMap(Notifier, (n) => n.send(type, summary))

export interface NotifierSettings extends NotifyTarget {
  /** Tries per notification, the first included. */
  readonly attempts: number
  /** First wait between tries; doubles (jittered). */
  readonly retryBase: Duration.DurationInput
  readonly requestTimeout: Duration.DurationInput
  /** How long the end of the process waits for the queue to empty. */
  readonly flushWithin: Duration.DurationInput
  readonly queueSize: number
  /** Where a notification that could not be delivered is told (the CLI renders it). */
  readonly warn: (text: string) => Effect.Effect<void>
}

export const NOTIFY_DEFAULTS = { attempts: 5, retryBase: "1 second", requestTimeout: "10 seconds", flushWithin: "5 seconds", queueSize: 100 } as const

class Undelivered extends Data.TaggedError("Undelivered")<{ readonly reason: string }> {}

// A transport error's message names the URL, whose path may be a token: only its kind is kept.
const undelivered = (e: HttpClientError.HttpClientError) =>
  new Undelivered({ reason: e._tag === "RequestError" ? `could not be reached (${e.reason.toLowerCase()} error)` : `answered HTTP ${e.response.status}` })

export const makeNotifier = (settings: NotifierSettings) =>
  Effect.gen(function* () {
    // A receiver outside is told nothing of our traces.
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false))
    const queue = yield* Queue.dropping<Notification>(settings.queueSize)
    // Queued or being delivered: what the end of the process waits for.
    const pending = yield* SubscriptionRef.make(0)
    const timeout = Duration.decode(settings.requestTimeout)

    const attempt = (id: string, body: string) =>
      Effect.gen(function* () {
        const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const response = yield* client
          .post(settings.url, {
            headers: { ...signedHeaders(settings.key, id, timestamp, body), accept: "application/json" },
            body: HttpBody.text(body, "application/json")
          })
          .pipe(
            Effect.mapError(undelivered),
            Effect.timeoutFail({ duration: timeout, onTimeout: () => new Undelivered({ reason: `no answer within ${Duration.format(timeout)}` }) })
          )
        if (response.status < 200 || response.status >= 300) return yield* new Undelivered({ reason: `answered HTTP ${response.status}` })
      }).pipe(Effect.scoped)

    const deliver = Effect.fn("Notifier.deliver")(function* (notification: Notification) {
      // One id for every try of a notification: the receiver's key to drop a repeat.
      const id = `msg_${randomUUID().replaceAll("-", "")}`
      const body = bodyOf(notification)
      yield* attempt(id, body).pipe(
        Effect.retry(Schedule.exponential(settings.retryBase).pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(settings.attempts - 1)))),
        Effect.catchAll((e) =>
          settings.warn(
            `notification ${notification.type} of batch ${notification.data.batch_id.slice(0, 12)} not delivered to ${settings.where}: ${e.reason} (${settings.attempts} tries)`
          )
        )
      )
    })

    yield* Queue.take(queue).pipe(
      Effect.flatMap((n) => deliver(n).pipe(Effect.ensuring(SubscriptionRef.update(pending, (k) => k - 1)))),
      Effect.forever,
      Effect.forkScoped
    )
    // Added after the fiber, so it runs first at the end: the queue empties before the fiber stops.
    yield* Effect.addFinalizer(() =>
      pending.changes.pipe(
        Stream.takeUntil((k) => k === 0),
        Stream.runDrain,
        // A finalizer runs uninterruptibly, and a timeout must be able to interrupt what it bounds.
        Effect.interruptible,
        Effect.timeoutOption(settings.flushWithin),
        Effect.flatMap((flushed) =>
          Option.isSome(flushed)
            ? Effect.void
            : Effect.flatMap(SubscriptionRef.get(pending), (left) =>
                settings.warn(`${left} notification(s) to ${settings.where} not delivered within ${Duration.format(Duration.decode(settings.flushWithin))} of the end: given up`)
              )
        )
      )
    )

    const send = (type: EventType, summary: unknown) =>
      Effect.gen(function* () {
        const notification = notificationOf(type, summary, yield* Clock.currentTimeMillis)
        if (Option.isNone(notification)) return
        yield* SubscriptionRef.update(pending, (k) => k + 1)
        if (yield* Queue.offer(queue, notification.value)) return
        yield* SubscriptionRef.update(pending, (k) => k - 1)
        yield* settings.warn(`notification ${type} dropped: ${settings.queueSize} are already waiting for ${settings.where}`)
      })
    return { send } satisfies NotifierShape
  })

/** The notifier of a command's process, with its own HTTP client. */
export const notifierLayer = (settings: NotifierSettings) =>
  Layer.scoped(Notifier, makeNotifier(settings)).pipe(Layer.provide(NodeHttpClient.layerUndici))

/**
 * `--notify URL`: the receiver and secret checked (a refusal names what to fix), then the notifier
 * started in the caller's scope, which waits for it to flush when it closes.
 */
export const startNotifier = (url: string, warn: NotifierSettings["warn"]) =>
  Effect.flatMap(notifyTarget(url), (target) => Layer.build(notifierLayer({ ...NOTIFY_DEFAULTS, ...target, warn })))
