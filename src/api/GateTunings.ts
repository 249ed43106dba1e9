// The request gate's options and tunings, the shapes of its shared budget and of its turns, and the small
// arithmetic beside GateState.ts: the store clock's offset, the slots one reservation asks for.
import { type Deferred, type Effect, type Option, Schema } from "effect"
import { GateStateJson } from "./GateState.ts"

export interface RequestGateOptions {
  /** Ceiling in requests per second; undefined starts unlimited and adapts after the first 429. */
  readonly ratePerSecond?: number
  readonly minRate?: number
  /** Requests per second regained per second of successful calls at full speed. */
  readonly recoveryPerSecond?: number
  /** Pause after a 429 that carries no Retry-After. */
  readonly defaultPauseMs?: number
}

/** The account's gate state in the shared store: changed atomically, with the store's clock. */
export interface SharedGate {
  readonly modify: <A>(
    change: (value: Option.Option<string>, nowMs: number) => readonly [A, Option.Option<string>]
  ) => Effect.Effect<A, unknown>
}

export interface Shared {
  readonly store: SharedGate
  /** Slots reserved in the store, in the store's clock, earliest first. */
  readonly pocket: ReadonlyArray<number>
  /** Store clock minus local clock, as measured at the last reservation. */
  readonly offset: number
  /** Successes not yet counted in the store. */
  readonly successes: number
  /** The shared rate as last read: how many slots to reserve at once. */
  readonly rate: number
}

/** Whose turn it is to wait for the next slot: held or not, and the callers waiting for it in order. */
export interface Turns {
  readonly held: boolean
  readonly waiting: ReadonlyArray<Deferred.Deferred<void>>
}

export const decodeState = Schema.decodeUnknownOption(GateStateJson)
export const encodeState = Schema.encodeSync(GateStateJson)

/**
 * Several workers' requests reach the service with their own network and event-loop delays, so two
 * slots a spacing apart can arrive closer: the shared budget spaces them for 95% of --rate (20 spacings
 * at 20/s span 1,053 ms: 53 ms of bunching still fits in one second), so the
 * account stays under it in every second as the service counts.
 */
export const SHARED_HEADROOM = 0.95

/**
 * A caller that wakes this long after its slot takes a new one (at most LATE_RETAKES times in a row).
 * Below the 53 ms the headroom leaves in a second: at 200 ms, a worker starved by a loaded machine
 * (not stopped) sent 50-200 ms late and the service saw 21 requests in a second at --rate 20
 * (workers soak, seed 13, load average 2.5).
 */
export const LATE_WAKE_MS = 40
export const LATE_RETAKES = 3

/** Reservations retried 250 ms apart while the store is away, before a process paces itself alone. */
export const WAIT_FOR_STORE_TRIES = 40

/** A reserved slot this far in the past is stale: dropped rather than spent late. */
export const STALE_SLOT_MS = 50

/**
 * The store's clock is read inside the reservation, after the register's lock: a reservation that
 * waited for the lock (other workers), for a slow machine or through a SIGSTOP reads it late or hears
 * back late, and the midpoint of its round trip misplaces the store's clock by up to half of it. Slots
 * mapped with that error land among another worker's (21-23 requests in a second at --rate 20, workers
 * soak seed 14 at load 10). As NTP does, the offset is taken from the quickest reservation of the last
 * CLOCK_WINDOW_MS, whose error is at most half of its (short) round trip.
 */
const CLOCK_WINDOW_MS = 30_000
const CLOCK_SAMPLES = 64

export interface ClockSample {
  readonly at: number
  readonly roundTripMs: number
  readonly offset: number
}

/** The samples kept after `sample` (recent ones, at most CLOCK_SAMPLES) and the offset to use. */
export const bestOffset = (samples: ReadonlyArray<ClockSample>, sample: ClockSample) => {
  const kept = [...samples.filter((s) => sample.at - s.at <= CLOCK_WINDOW_MS), sample].slice(-CLOCK_SAMPLES)
  const quickest = kept.reduce((best, s) => (s.roundTripMs < best.roundTripMs ? s : best))
  return { kept, offset: quickest.offset }
}

/** About a tenth of a second's worth of slots per reservation: few round trips, no hoarding. */
export const batchOf = (rate: number) => (Number.isFinite(rate) ? Math.max(1, Math.min(8, Math.ceil(rate / 10))) : 8)
