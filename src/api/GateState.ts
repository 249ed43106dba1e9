/**
 * The request gate's state and its rules, as pure functions (DESIGN 8): kept in a Ref by one process,
 * or in the store's register by every worker of an account (DESIGN 12), with the same arithmetic.
 */
import { Schema } from "effect"

/** Number.POSITIVE_INFINITY survives JSON as null: "unlimited". */
const Rate = Schema.transform(Schema.NullOr(Schema.Number), Schema.Number, {
  strict: true,
  decode: (n) => n ?? Number.POSITIVE_INFINITY,
  encode: (n) => (Number.isFinite(n) ? n : null)
})

export const GateState = Schema.Struct({
  rate: Rate,
  nextAt: Schema.Number,
  pausedUntil: Schema.Number,
  cutGuardUntil: Schema.Number,
  windowStart: Schema.Number,
  windowCount: Schema.Number,
  previousCount: Schema.Number
})
export type GateState = typeof GateState.Type

export const GateStateJson = Schema.parseJson(GateState)

export interface GateRules {
  readonly maxRate: number
  readonly minRate: number
  readonly recovery: number
  readonly defaultPauseMs: number
}

const WINDOW_MS = 1000

export const initialState = (now: number, maxRate: number): GateState => ({
  rate: maxRate,
  nextAt: now,
  pausedUntil: now,
  cutGuardUntil: now,
  windowStart: now,
  windowCount: 0,
  previousCount: 0
})

const countTake = (s: GateState, now: number): GateState => {
  if (now - s.windowStart < WINDOW_MS) return { ...s, windowCount: s.windowCount + 1 }
  const contiguous = now - s.windowStart < 2 * WINDOW_MS
  return { ...s, windowStart: now, windowCount: 1, previousCount: contiguous ? s.windowCount : 0 }
}

const observedRate = (s: GateState, now: number) =>
  now - s.windowStart < WINDOW_MS ? Math.max(s.windowCount, s.previousCount) : s.windowCount

/**
 * `count` slots from now: each at least one interval after the last under this caller's ceiling. A
 * schedule behind by at most `behindMs` goes on from its last slot (its caller was late, not idle),
 * so a late caller does not push every later slot back; one behind by more starts again now.
 */
export const reserve = (s: GateState, now: number, count: number, maxRate: number, behindMs = 0): readonly [ReadonlyArray<number>, GateState] => {
  const slots: Array<number> = []
  let state = s
  for (let i = 0; i < count; i++) {
    const start = Math.max(now - state.nextAt <= behindMs ? state.nextAt : now, state.pausedUntil)
    const rate = Math.min(state.rate, maxRate)
    const interval = Number.isFinite(rate) ? 1000 / rate : 0
    slots.push(start)
    state = countTake({ ...state, nextAt: start + interval }, start)
  }
  return [slots, state]
}

/** A 429: everyone pauses until Retry-After; the rate halves once per pause, not once per answer. */
export const rateLimited = (s: GateState, now: number, retryAfterMs: number | undefined, rules: GateRules): GateState => {
  const pausedUntil = Math.max(s.pausedUntil, now + (retryAfterMs ?? rules.defaultPauseMs))
  if (now < s.cutGuardUntil) return { ...s, pausedUntil }
  const base = Number.isFinite(s.rate) ? s.rate : observedRate(s, now)
  const rate = Math.max(rules.minRate, base / 2)
  return { ...s, rate, pausedUntil, cutGuardUntil: Math.max(now + WINDOW_MS, pausedUntil) }
}

/** `count` successful calls: the rate creeps back up (additive increase) to the ceiling. */
export const succeeded = (s: GateState, count: number, rules: GateRules): GateState => {
  let rate = s.rate
  for (let i = 0; i < count && Number.isFinite(rate) && rate < rules.maxRate; i++) rate = Math.min(rules.maxRate, rate + rules.recovery / rate)
  return rate === s.rate ? s : { ...s, rate }
}
