// Where the request gate's next slot comes from: the local rate, or the account's budget in the store,
// reserved there a few slots at a time. Built once per gate over the gate's own Refs.
import { Clock, Duration, Effect, Option, Ref } from "effect"
import { type GateRules, type GateState, initialState, reserve, succeeded } from "./GateState.ts"
import {
  batchOf,
  bestOffset,
  type ClockSample,
  decodeState,
  encodeState,
  LATE_WAKE_MS,
  type Shared,
  SHARED_HEADROOM,
  STALE_SLOT_MS,
  WAIT_FOR_STORE_TRIES
} from "./GateTunings.ts"

/** The gate's settings and the Refs its slots are taken from. */
export interface SlotSource {
  readonly maxRate: number
  readonly rules: GateRules
  readonly state: Ref.Ref<GateState>
  readonly shared: Ref.Ref<Option.Option<Shared>>
  readonly drawing: Effect.Semaphore
  readonly clockSamples: Ref.Ref<ReadonlyArray<ClockSample>>
  readonly storeFailures: Ref.Ref<number>
  readonly busy: Ref.Ref<boolean>
}

export const makeSlots = ({ maxRate, rules, state, shared, drawing, clockSamples, storeFailures, busy }: SlotSource) => {
  /** The next slot under the local rate: when it is due and when it was taken, both in local ms. */
  const reserveLocalAt = Effect.flatMap(Effect.zip(Clock.currentTimeMillis, Ref.getAndSet(busy, false)), ([now, behind]) =>
    Ref.modify(state, (s) => {
      const [[start], next] = reserve(s, now, 1, maxRate, behind ? LATE_WAKE_MS : 0)
      return [{ due: start, now }, next] as const
    })
  )
  const reserveLocal = Effect.map(reserveLocalAt, ({ due, now }) => due - now)

  /** Reserves a few slots in the store; on a store failure the local gate decides alone. */
  const draw = (current: Shared) =>
    Effect.gen(function*() {
      const sentAt = yield* Clock.currentTimeMillis
      const drawn = yield* current.store.modify((value, nowMs) => {
        const s0 = Option.getOrElse(Option.flatMap(value, decodeState), () => initialState(nowMs, maxRate))
        const [slots, s1] = reserve(succeeded(s0, current.successes, rules), nowMs, batchOf(Math.min(s0.rate, maxRate)), maxRate * SHARED_HEADROOM)
        return [{ slots, nowMs, rate: s1.rate, pausedUntil: s1.pausedUntil }, Option.some(encodeState(s1))] as const
      })
      const receivedAt = yield* Clock.currentTimeMillis
      const offset = yield* Ref.modify(clockSamples, (samples) => {
        const { kept, offset } = bestOffset(samples, { at: receivedAt, roundTripMs: receivedAt - sentAt, offset: drawn.nowMs - (sentAt + receivedAt) / 2 })
        return [offset, kept] as const
      })
      yield* Ref.update(state, (s) => ({ ...s, pausedUntil: Math.max(s.pausedUntil, drawn.pausedUntil - offset) }))
      // Taken meanwhile from the pocket by other callers: append to what is there now.
      yield* Ref.update(shared, (sh) =>
        Option.match(sh, {
          onNone: () => sh,
          onSome: (now) =>
            Option.some({
              ...now,
              pocket: [...now.pocket, ...drawn.slots],
              offset,
              // Successes counted meanwhile are the next reservation's to report.
              successes: Math.max(0, now.successes - current.successes),
              rate: drawn.rate
            })
        })
      )
    }).pipe(
      Effect.tap(() => Ref.set(storeFailures, 0)),
      Effect.as(true),
      // The store is away (a cut connection, a restart): the requests wait for it a little, since
      // pacing alone, every worker would spend the whole budget. Past that, this process paces
      // itself alone until the store answers again; the next reservation asks it again.
      Effect.catchAll((error) =>
        Effect.gen(function*() {
          const failures = yield* Ref.updateAndGet(storeFailures, (n) => n + 1)
          if (failures === 1) yield* Effect.logWarning(`the shared request budget could not be read (${String(error)}): waiting for the state store`)
          if (failures <= WAIT_FOR_STORE_TRIES) return yield* Effect.as(Effect.sleep(Duration.millis(250)), true)
          const wait = yield* reserveLocal
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          return false
        })
      )
    )

  /** This caller's next slot, and the local time when it was taken (both local ms). */
  const reserveSlot: Effect.Effect<{ readonly due: number; readonly now: number }> = Effect.gen(function*() {
    for (;;) {
      const current = yield* Ref.get(shared)
      if (Option.isNone(current)) return yield* reserveLocalAt
      const localNow = yield* Clock.currentTimeMillis
      const taken = yield* Ref.modify(shared, (sh) => {
        if (Option.isNone(sh)) return [Option.none<number>(), sh] as const
        // A slot already past (this process was stopped, or slow to use it) is dropped, not spent:
        // spending a handful of them at once would burst above the account's rate.
        const fresh = sh.value.pocket.filter((slot) => slot - sh.value.offset >= localNow - STALE_SLOT_MS)
        return fresh.length > 0
          ? [Option.some(fresh[0] - sh.value.offset), Option.some({ ...sh.value, pocket: fresh.slice(1) })] as const
          : [Option.none<number>(), Option.some({ ...sh.value, pocket: [] })] as const
      })
      if (Option.isSome(taken)) {
        // Reserve the next slots before these run out: a worker never waits on the store between
        // two of its slots, and the new ones follow on from the account's last.
        const left = yield* Effect.map(Ref.get(shared), (sh) => (Option.isSome(sh) ? sh.value.pocket.length : Infinity))
        if (left <= Math.floor(batchOf(Option.getOrElse(Option.map(current, (c) => c.rate), () => maxRate)) / 2)) {
          yield* Effect.forkDaemon(
            drawing.withPermitsIfAvailable(1)(
              Effect.flatMap(Ref.get(shared), (sh) =>
                Option.isSome(sh) && sh.value.pocket.length <= Math.floor(batchOf(sh.value.rate) / 2) ? draw(sh.value) : Effect.void
              )
            )
          )
        }
        return { due: taken.value, now: yield* Clock.currentTimeMillis }
      }
      // One reservation at a time: concurrent takers wait for it instead of each asking the store.
      const drawn = yield* drawing.withPermits(1)(
        Effect.flatMap(Ref.get(shared), (sh) => (Option.isSome(sh) && sh.value.pocket.length === 0 ? draw(sh.value) : Effect.succeed(true)))
      )
      // The store could not be asked: this caller was paced locally instead.
      if (!drawn) {
        const now = yield* Clock.currentTimeMillis
        return { due: now, now }
      }
    }
  })

  return { reserveSlot } as const
}
