/**
 * The breaker's probe window (issue 31, item 2). At an unlimited rate every row of an operator would
 * be sent before the first failure came back, leaving the breaker nothing to hold. So until one of an
 * operator's payouts completes (in this run or, resumed, in the batch), at most `size` of them are
 * sent; its other rows wait, unclaimed. A failure does not free a place: with no success yet, the
 * `size` failures trip the breaker (it counts consecutive failures), and freeing places would let up
 * to 2 x size - 1 payouts go to an operator that fails them all. The window opens for good with the
 * operator's first success, or after `probeMs` full with no final status (an operator settling slowly,
 * or rows in doubt, must not stall the batch for hours).
 * Synchronous state, asked right before each POST: once an operator is open, one Set lookup.
 */

interface Probe {
  /** Rows of the operator whose POST began (until it is proven by a completion). */
  readonly unsettled: Set<number>
  /** Since the window filled, or the operator's last final status after it did; undefined while not full. */
  fullSince: number | undefined
}

export const makeProbeWindow = (size: number, probeMs: number) => {
  const open = new Set<string>()
  const probes = new Map<string, Probe>()
  const operatorOf = new Map<number, string>()

  const probeOf = (operator: string) => {
    const found = probes.get(operator)
    if (found !== undefined) return found
    const probe: Probe = { unsettled: new Set(), fullSince: undefined }
    probes.set(operator, probe)
    return probe
  }

  const openFor = (operator: string) => {
    open.add(operator)
    const probe = probes.get(operator)
    probes.delete(operator)
    probe?.unsettled.forEach((idx) => operatorOf.delete(idx))
  }

  /** Takes the row out of its operator's window: it was never sent after all. */
  const leave = (idx: number, now: number) => {
    const operator = operatorOf.get(idx)
    operatorOf.delete(idx)
    const probe = operator === undefined ? undefined : probes.get(operator)
    if (probe === undefined || !probe.unsettled.delete(idx)) return
    probe.fullSince = probe.unsettled.size >= size ? now : undefined
  }

  return {
    /** True when the window is off (size 0) or open for the operator: nothing to count. */
    isOpen: (operator: string) => size <= 0 || open.has(operator),
    /**
     * The row's POST is about to begin: true (and counted in the window) when it may go; false when
     * its operator already has `size` payouts in the window (the row waits). A row already counted
     * (a try again of the same POST) goes.
     */
    admit: (idx: number, operator: string, now: number) => {
      if (size <= 0 || open.has(operator)) return true
      const probe = probeOf(operator)
      if (probe.unsettled.has(idx)) return true
      if (probe.unsettled.size >= size) return false
      probe.unsettled.add(idx)
      operatorOf.set(idx, operator)
      if (probe.unsettled.size >= size) probe.fullSince = now
      return true
    },
    /** A row admitted whose POST never left (released, skipped): its place in the window is free again. */
    cancel: (idx: number, now: number) => leave(idx, now),
    /**
     * A row's final status: a completion opens its operator's window for the rest of the run; a
     * failure keeps its place (see above) and restarts the wait for a final status. True when the
     * operator's window opened now (rows it held may be claimed at once).
     */
    settled: (idx: number, operator: string | undefined, completed: boolean, now: number): boolean => {
      if (operator === undefined || size <= 0 || open.has(operator)) return false
      if (completed) {
        openFor(operator)
        return true
      }
      const probe = probes.get(operator)
      if (probe?.fullSince !== undefined) probe.fullSince = now
      return false
    },
    /** Opens the operator's window (an earlier run of the batch paid one of its rows). */
    open: openFor,
    /** Operators whose window is full now: none of their rows is claimed. */
    full: (): ReadonlyArray<string> => [...probes].filter(([, p]) => p.unsettled.size >= size).map(([op]) => op),
    /** Opens, and returns, the windows full for `probeMs` or longer without any final status. */
    expire: (now: number): ReadonlyArray<string> => {
      const expired = [...probes].filter(([, p]) => p.fullSince !== undefined && now - p.fullSince >= probeMs).map(([op]) => op)
      expired.forEach(openFor)
      return expired
    }
  }
}

export type ProbeWindow = ReturnType<typeof makeProbeWindow>
