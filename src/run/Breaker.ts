/**
 * The circuit breaker's count: per operator, its rows in the order their POSTs began, each open until
 * its outcome is known. It trips when N rows next to each other in that order have all failed.
 * Outcomes arrive out of order under concurrency: a success of an earlier row answered late does not
 * hide later failures, and a row whose outcome is not known yet breaks a run until it is.
 */

type Outcome = "open" | "failed" | "completed"

interface Lane {
  /** Sort keys of the operator's rows, ascending (their submission order). */
  readonly keys: Array<number>
  readonly outcomes: Map<number, Outcome>
}

/** Rows sent by this run come after every row sent before it (keyed by their index: rows are claimed in that order). */
const THIS_RUN = 1e15

/** Where `key` is, or would be inserted, in the ascending `keys`. */
const positionOf = (keys: ReadonlyArray<number>, key: number) => {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid] < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

export const makeBreakerCount = () => {
  const lanes = new Map<string, Lane>()
  const rows = new Map<number, { readonly operator: string; readonly key: number }>()
  let sent = 0

  const laneOf = (operator: string) => {
    const found = lanes.get(operator)
    if (found !== undefined) return found
    const lane: Lane = { keys: [], outcomes: new Map() }
    lanes.set(operator, lane)
    return lane
  }

  const place = (lane: Lane, key: number) => {
    if (lane.outcomes.has(key)) return
    const keys = lane.keys
    if (keys.length === 0 || keys[keys.length - 1] < key) keys.push(key)
    else keys.splice(positionOf(keys, key), 0, key)
    lane.outcomes.set(key, "open")
  }

  /** Failed rows next to each other around `at` (its own included). */
  const runAround = (lane: Lane, at: number) => {
    const failedAt = (i: number) => lane.outcomes.get(lane.keys[i]) === "failed"
    let before = at - 1
    while (before >= 0 && failedAt(before)) before--
    let after = at + 1
    while (after < lane.keys.length && failedAt(after)) after++
    return after - before - 1
  }

  return {
    /** The row's POST begins now: its place in its operator's order. */
    sending: (idx: number, operator: string) => {
      const key = THIS_RUN + sent++
      rows.set(idx, { operator, key })
      place(laneOf(operator), key)
    },
    /** Whether the row's operator is known without reading the row (it was sent by this run). */
    knows: (idx: number) => rows.has(idx),
    /**
     * A row's first outcome. Returns its operator and, for a failure, how many failed rows of that
     * operator are now next to each other in submission order. `operatorOfEarlier`: the operator of a
     * row this run did not send (an earlier run of the batch did).
     */
    settled: (idx: number, failed: boolean, operatorOfEarlier?: string) => {
      const mine = rows.get(idx)
      rows.delete(idx)
      const operator = mine?.operator ?? operatorOfEarlier
      if (operator === undefined) return undefined
      const lane = laneOf(operator)
      const key = mine?.key ?? idx
      place(lane, key)
      lane.outcomes.set(key, failed ? "failed" : "completed")
      return { operator, run: failed ? runAround(lane, positionOf(lane.keys, key)) : 0 }
    }
  }
}
