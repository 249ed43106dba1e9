/**
 * The faults' own state as one immutable value in a Ref: the settings and seed in force (replaced
 * whole by PUT /__sandbox/faults), their seeded random, the counters, the rate limit's token bucket
 * and the 429 bursts under way. Each change is a pure function applied by one Ref.modify/update.
 */
import { type Effect, HashMap, Option, Random, Ref } from "effect"
import type { FaultSettings } from "./FaultSettings.ts"

export interface Bucket {
  readonly tokens: number
  readonly last: number
}

export interface FaultWorld {
  readonly settings: FaultSettings
  /** The seed in use (given by seed=N, else drawn at random): reported so a run can be replayed. */
  readonly seed: number
  readonly random: Random.Random
  readonly counters: HashMap.HashMap<string, number>
  readonly bucket: Bucket
  /** Requests still to refuse with 429 in the burst under way, per endpoint. */
  readonly bursts: HashMap.HashMap<string, number>
}

export type FaultState = Ref.Ref<FaultWorld>

export const makeFaultWorld = (settings: FaultSettings, seed: number, nowMillis: number): FaultWorld => ({
  settings,
  seed,
  random: Random.make(seed),
  counters: HashMap.empty(),
  bucket: { tokens: Math.max(1, settings.rate ?? 1), last: nowMillis },
  bursts: HashMap.empty()
})

export const makeFaultState = (settings: FaultSettings, seed: number, nowMillis: number): Effect.Effect<FaultState> =>
  Ref.make(makeFaultWorld(settings, seed, nowMillis))

const valueOf = (map: HashMap.HashMap<string, number>, key: string) => Option.getOrElse(HashMap.get(map, key), () => 0)

const plus = (counters: HashMap.HashMap<string, number>, key: string, by: number) => HashMap.set(counters, key, valueOf(counters, key) + by)

/** Adds `by` (default 1) to a counter. */
export const countIn = (world: FaultWorld, key: string, by = 1): FaultWorld => ({ ...world, counters: plus(world.counters, key, by) })

export const count = (faults: FaultState, key: string, by = 1): Effect.Effect<void> => Ref.update(faults, (w) => countIn(w, key, by))

export const countersOf = (world: FaultWorld): Record<string, number> => Object.fromEntries(world.counters)

/**
 * A /v1 request arrives: it is counted, and takes a token from the bucket when a rate is set.
 * The Retry-After seconds when the bucket is empty (the refusal counted too), else undefined.
 */
export const admit = (world: FaultWorld, endpoint: string | undefined, now: number): readonly [number | undefined, FaultWorld] => {
  const counted = endpoint === undefined ? countIn(world, "requests") : countIn(countIn(world, "requests"), `${endpoint}.requests`)
  const rate = world.settings.rate
  if (rate === undefined) return [undefined, counted]
  const capacity = Math.max(1, rate)
  const tokens = Math.min(capacity, world.bucket.tokens + ((now - world.bucket.last) * rate) / 1000)
  if (tokens >= 1) return [undefined, { ...counted, bucket: { tokens: tokens - 1, last: now } }]
  return [Math.max(1, Math.ceil((1 - tokens) / rate)), { ...countIn(counted, "rate_limited"), bucket: { tokens, last: now } }]
}

/** Refuses this request as part of the 429 burst under way on `endpoint`, if there is one: whether it did. */
export const takeBurst = (world: FaultWorld, endpoint: string): readonly [boolean, FaultWorld] => {
  const left = valueOf(world.bursts, endpoint)
  if (left <= 0) return [false, world]
  return [true, countIn({ ...world, bursts: HashMap.set(world.bursts, endpoint, left - 1) }, `${endpoint}.rate_limited`)]
}

/** A burst of `length` refusals opens on `endpoint` with this request; one opened meanwhile is joined instead. */
export const openBurst = (world: FaultWorld, endpoint: string, length: number): FaultWorld => {
  const [joined, taken] = takeBurst(world, endpoint)
  return joined ? taken : countIn({ ...world, bursts: HashMap.set(world.bursts, endpoint, length - 1) }, `${endpoint}.rate_limited`)
}
