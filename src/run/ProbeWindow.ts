/**
 * The breaker's probe window (issue 31, item 2). At an unlimited rate every row of an operator would
 * be sent before the first failure came back, leaving the breaker nothing to hold. So until one of an
 * operator's payouts completes (in this run or, resumed, in the batch), at most `size` of them are
 * sent; its other rows wait, unclaimed. A failure does not free a place: with no success yet, the
 * `size` failures trip the breaker (it counts consecutive failures), and freeing places would let up
 * to 2 x size - 1 payouts go to an operator that fails them all. The window opens for good with the
 * operator's first success, or after `probeMs` full with no final status (an operator settling slowly,
 * or rows in doubt, must not stall the batch for hours).
 * An immutable value (held in the Safeguards' Ref), asked right before each POST: once an operator is
 * open, one HashSet lookup and the same value back.
 */
import { HashMap, HashSet, Option } from "effect"

interface Probe {
  /** Rows of the operator whose POST began (until it is proven by a completion). */
  readonly unsettled: HashSet.HashSet<number>
  /** Since the window filled, or the operator's last final status after it did; undefined while not full. */
  readonly fullSince: number | undefined
  /** The order probes began in: `full` and `expire` list operators in it. */
  readonly seq: number
}

export interface ProbeWindow {
  readonly size: number
  readonly probeMs: number
  /** Operators whose window is open for the rest of the run. */
  readonly opened: HashSet.HashSet<string>
  readonly probes: HashMap.HashMap<string, Probe>
  readonly operatorOf: HashMap.HashMap<number, string>
  readonly begun: number
}

export const make = (size: number, probeMs: number): ProbeWindow => ({
  size,
  probeMs,
  opened: HashSet.empty(),
  probes: HashMap.empty(),
  operatorOf: HashMap.empty(),
  begun: 0
})

const probeOf = (w: ProbeWindow, operator: string) => Option.getOrUndefined(HashMap.get(w.probes, operator))

const withProbe = (w: ProbeWindow, operator: string, probe: Probe): ProbeWindow => ({ ...w, probes: HashMap.set(w.probes, operator, probe) })

/** True when the window is off (size 0) or open for the operator: nothing to count. */
export const isOpen = (w: ProbeWindow, operator: string): boolean => w.size <= 0 || HashSet.has(w.opened, operator)

/**
 * The row's POST is about to begin: true (and counted in the window) when it may go; false when its
 * operator already has `size` payouts in the window (the row waits). A row already counted (a try
 * again of the same POST) goes.
 */
export const admit = (w: ProbeWindow, idx: number, operator: string, now: number): readonly [boolean, ProbeWindow] => {
  if (isOpen(w, operator)) return [true, w]
  const probe = probeOf(w, operator)
  const unsettled = probe?.unsettled ?? HashSet.empty<number>()
  if (HashSet.has(unsettled, idx)) return [true, w]
  if (HashSet.size(unsettled) >= w.size) return [false, w]
  const counted = HashSet.add(unsettled, idx)
  const next: Probe = {
    unsettled: counted,
    fullSince: HashSet.size(counted) >= w.size ? now : probe?.fullSince,
    seq: probe?.seq ?? w.begun
  }
  return [true, {
    ...withProbe(w, operator, next),
    operatorOf: HashMap.set(w.operatorOf, idx, operator),
    begun: probe === undefined ? w.begun + 1 : w.begun
  }]
}

/** A row admitted whose POST never left (released, skipped): its place in the window is free again. */
export const cancel = (w: ProbeWindow, idx: number, now: number): ProbeWindow => {
  const operator = Option.getOrUndefined(HashMap.get(w.operatorOf, idx))
  if (operator === undefined) return w
  const left = { ...w, operatorOf: HashMap.remove(w.operatorOf, idx) }
  const probe = probeOf(w, operator)
  if (probe === undefined || !HashSet.has(probe.unsettled, idx)) return left
  const unsettled = HashSet.remove(probe.unsettled, idx)
  return withProbe(left, operator, { ...probe, unsettled, fullSince: HashSet.size(unsettled) >= w.size ? now : undefined })
}

/** Opens the operator's window (its first completion, or an earlier run of the batch paid one of its rows). */
export const open = (w: ProbeWindow, operator: string): ProbeWindow => {
  const probe = probeOf(w, operator)
  return {
    ...w,
    opened: HashSet.add(w.opened, operator),
    probes: HashMap.remove(w.probes, operator),
    operatorOf: probe === undefined ? w.operatorOf : HashMap.removeMany(w.operatorOf, probe.unsettled)
  }
}

/**
 * A row's final status: a completion opens its operator's window for the rest of the run; a failure
 * keeps its place (see above) and restarts the wait for a final status. True when the operator's
 * window opened now (rows it held may be claimed at once).
 */
export const settled = (
  w: ProbeWindow,
  idx: number,
  operator: string | undefined,
  completed: boolean,
  now: number
): readonly [boolean, ProbeWindow] => {
  if (operator === undefined || isOpen(w, operator)) return [false, w]
  if (completed) return [true, open(w, operator)]
  const probe = probeOf(w, operator)
  return [false, probe?.fullSince === undefined ? w : withProbe(w, operator, { ...probe, fullSince: now })]
}

/** The operators whose probe passes `test`, in the order their probes began. */
const operators = (w: ProbeWindow, test: (probe: Probe) => boolean): ReadonlyArray<string> =>
  Array.from(w.probes)
    .filter(([, probe]) => test(probe))
    .sort(([, a], [, b]) => a.seq - b.seq)
    .map(([operator]) => operator)

/** Operators whose window is full now: none of their rows is claimed. */
export const full = (w: ProbeWindow): ReadonlyArray<string> => operators(w, (probe) => HashSet.size(probe.unsettled) >= w.size)

/** Opens, and returns, the windows full for `probeMs` or longer without any final status. */
export const expire = (w: ProbeWindow, now: number): readonly [ReadonlyArray<string>, ProbeWindow] => {
  const expired = operators(w, (probe) => probe.fullSince !== undefined && now - probe.fullSince >= w.probeMs)
  return [expired, expired.reduce(open, w)]
}
