/**
 * The circuit breaker's count: per operator, its rows in the order their POSTs began, each open until
 * its outcome is known. It trips when N rows next to each other in that order have all failed.
 * Outcomes arrive out of order under concurrency: a success of an earlier row answered late does not
 * hide later failures, and a row whose outcome is not known yet breaks a run until it is.
 * An immutable value (held in the Safeguards' Ref): each step returns the new count, in O(log n), so a
 * lane of 100k rows is never copied.
 */
import { HashMap, Option, Order, RedBlackTree } from "effect"

type Outcome = "open" | "failed" | "completed"

/** An operator's rows by sort key, ascending (their submission order); one entry per key (see `withOutcome`). */
type Lane = RedBlackTree.RedBlackTree<number, Outcome>

export interface BreakerCount {
  readonly lanes: HashMap.HashMap<string, Lane>
  /** Rows this run sent whose outcome is not known yet: their operator and sort key. */
  readonly rows: HashMap.HashMap<number, { readonly operator: string; readonly key: number }>
  readonly sent: number
}

/** A row's first outcome: its operator and, for a failure, the run of consecutive failures it is in. */
export interface Settled {
  readonly operator: string
  readonly run: number
}

/** Rows sent by this run come after every row sent before it (keyed by their index: rows are claimed in that order). */
const THIS_RUN = 1e15

const noRows: Lane = RedBlackTree.empty(Order.number)

export const empty: BreakerCount = { lanes: HashMap.empty(), rows: HashMap.empty(), sent: 0 }

const laneOf = (count: BreakerCount, operator: string): Lane => Option.getOrElse(HashMap.get(count.lanes, operator), () => noRows)

/** The row at `key` with this outcome: RedBlackTree keeps duplicate keys, so a row already placed is removed first. */
const withOutcome = (lane: Lane, key: number, outcome: Outcome): Lane =>
  RedBlackTree.insert(RedBlackTree.has(lane, key) ? RedBlackTree.removeFirst(lane, key) : lane, key, outcome)

/** How many failed rows come first among `entries` (the neighbours on one side, nearest first). */
const failedRun = (entries: Iterable<readonly [number, Outcome]>) => {
  let n = 0
  for (const [, outcome] of entries) {
    if (outcome !== "failed") break
    n++
  }
  return n
}

/** Failed rows next to each other around `key` (its own included). */
const runAround = (lane: Lane, key: number) =>
  failedRun(RedBlackTree.lessThanReversed(lane, key)) + 1 + failedRun(RedBlackTree.greaterThan(lane, key))

/** The row's POST begins now: its place in its operator's order. */
export const sending = (count: BreakerCount, idx: number, operator: string): BreakerCount => {
  const key = THIS_RUN + count.sent
  return {
    lanes: HashMap.set(count.lanes, operator, withOutcome(laneOf(count, operator), key, "open")),
    rows: HashMap.set(count.rows, idx, { operator, key }),
    sent: count.sent + 1
  }
}

/** Whether the row's operator is known without reading the row (it was sent by this run). */
export const knows = (count: BreakerCount, idx: number): boolean => HashMap.has(count.rows, idx)

/**
 * A row's first outcome. Returns its operator and, for a failure, how many failed rows of that
 * operator are now next to each other in submission order (undefined when its operator is unknown),
 * with the new count. `operatorOfEarlier`: the operator of a row this run did not send (an earlier
 * run of the batch did); such a row is keyed by its index, before this run's rows.
 */
export const settled = (
  count: BreakerCount,
  idx: number,
  failed: boolean,
  operatorOfEarlier?: string
): readonly [Settled | undefined, BreakerCount] => {
  const mine = Option.getOrUndefined(HashMap.get(count.rows, idx))
  const operator = mine?.operator ?? operatorOfEarlier
  if (operator === undefined) return [undefined, count]
  const key = mine?.key ?? idx
  const lane = withOutcome(laneOf(count, operator), key, failed ? "failed" : "completed")
  const next: BreakerCount = {
    lanes: HashMap.set(count.lanes, operator, lane),
    rows: mine === undefined ? count.rows : HashMap.remove(count.rows, idx),
    sent: count.sent
  }
  return [{ operator, run: failed ? runAround(lane, key) : 0 }, next]
}
