/**
 * One shared, adaptive request rate for every call to the service (DESIGN.md 8): a 429 halves the
 * rate and pauses everyone until Retry-After; successes creep it back up (additive increase).
 * Effect's RateLimiter has a fixed limit, hence this small service on Ref and Clock.
 */
import { Clock, Duration, Effect, Layer, Ref } from "effect"

export interface RequestGateOptions {
  /** Ceiling in requests per second; undefined starts unlimited and adapts after the first 429. */
  readonly ratePerSecond?: number
  readonly minRate?: number
  /** Requests per second regained per second of successful calls at full speed. */
  readonly recoveryPerSecond?: number
  /** Pause after a 429 that carries no Retry-After. */
  readonly defaultPauseMs?: number
}

interface State {
  readonly rate: number
  readonly nextAt: number
  readonly pausedUntil: number
  readonly cutGuardUntil: number
  readonly windowStart: number
  readonly windowCount: number
  readonly previousCount: number
}

const WINDOW_MS = 1000

const countTake = (s: State, now: number): State => {
  if (now - s.windowStart < WINDOW_MS) return { ...s, windowCount: s.windowCount + 1 }
  const contiguous = now - s.windowStart < 2 * WINDOW_MS
  return { ...s, windowStart: now, windowCount: 1, previousCount: contiguous ? s.windowCount : 0 }
}

const observedRate = (s: State, now: number) =>
  now - s.windowStart < WINDOW_MS ? Math.max(s.windowCount, s.previousCount) : s.windowCount

export const makeRequestGate = (options: RequestGateOptions = {}) =>
  Effect.gen(function*() {
    const maxRate = options.ratePerSecond ?? Number.POSITIVE_INFINITY
    const minRate = Math.min(options.minRate ?? 1, maxRate)
    const recovery = options.recoveryPerSecond ?? Math.max(1, Number.isFinite(maxRate) ? maxRate / 20 : 1)
    const defaultPauseMs = options.defaultPauseMs ?? 1000
    const now0 = yield* Clock.currentTimeMillis
    const state = yield* Ref.make<State>({
      rate: maxRate,
      nextAt: now0,
      pausedUntil: now0,
      cutGuardUntil: now0,
      windowStart: now0,
      windowCount: 0,
      previousCount: 0
    })

    const reserve = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.modify(state, (s) => {
        const start = Math.max(now, s.nextAt, s.pausedUntil)
        const interval = Number.isFinite(s.rate) ? 1000 / s.rate : 0
        return [start - now, countTake({ ...s, nextAt: start + interval }, start)] as const
      })
    )

    const stillPaused = Effect.zipWith(Clock.currentTimeMillis, Ref.get(state), (now, s) => s.pausedUntil > now)

    /** Waits for a slot under the current rate; a pause that began meanwhile is waited out too. */
    const take: Effect.Effect<void> = Effect.gen(function*() {
      while (true) {
        const wait = yield* reserve
        if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
        if (!(yield* stillPaused)) return
      }
    })

    const onRateLimited = (retryAfterMs?: number): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(state, (s) => {
          const pausedUntil = Math.max(s.pausedUntil, now + (retryAfterMs ?? defaultPauseMs))
          // The other calls in flight answer 429 too: one cut per pause, not one per answer.
          if (now < s.cutGuardUntil) return { ...s, pausedUntil }
          const base = Number.isFinite(s.rate) ? s.rate : observedRate(s, now)
          const rate = Math.max(minRate, base / 2)
          return { ...s, rate, pausedUntil, cutGuardUntil: Math.max(now + WINDOW_MS, pausedUntil) }
        })
      )

    const onSuccess: Effect.Effect<void> = Ref.update(state, (s) =>
      Number.isFinite(s.rate) && s.rate < maxRate ? { ...s, rate: Math.min(maxRate, s.rate + recovery / s.rate) } : s
    )

    /** Requests per second now allowed; Infinity while unlimited. */
    const currentRate: Effect.Effect<number> = Effect.map(Ref.get(state), (s) => s.rate)

    return { take, onRateLimited, onSuccess, currentRate } as const
  })

export class RequestGate extends Effect.Service<RequestGate>()("api/RequestGate", {
  effect: makeRequestGate()
}) {
  static readonly layer = (options: RequestGateOptions): Layer.Layer<RequestGate> =>
    Layer.effect(RequestGate, Effect.map(makeRequestGate(options), (gate) => RequestGate.make(gate)))
}

/** Starts unlimited and adapts after the first 429. */
export const layerUnlimited: Layer.Layer<RequestGate> = RequestGate.Default
