/**
 * Which reference to look up next: a min-heap on due time, so a million tracked rows cost
 * O(log n) per poll rather than a scan per tick.
 */
export interface PollEntry {
  readonly idx: number
  readonly reference: string
  /** The row's own amount and currency: a status answer is held against them (api/Plausible.ts). */
  readonly amountMinor: number | null
  readonly currency: string
  dueAt: number
  interval: number
  readonly since: number
  /** Position in the heap, kept so a webhook can wake an entry without a scan. */
  pos?: number
}

export class PollQueue {
  private readonly heap: Array<PollEntry> = []
  private readonly byReference = new Map<string, PollEntry>()

  get size(): number {
    return this.heap.length
  }

  has(reference: string): boolean {
    return this.byReference.has(reference)
  }

  push(entry: PollEntry): void {
    if (this.byReference.has(entry.reference)) return
    this.byReference.set(entry.reference, entry)
    entry.pos = this.heap.length
    this.heap.push(entry)
    this.up(entry.pos)
  }

  nextDueAt(): number | undefined {
    return this.heap[0]?.dueAt
  }

  /** Removes and returns every entry due at `now`, at most `limit`. */
  takeDue(now: number, limit: number): Array<PollEntry> {
    const due: Array<PollEntry> = []
    while (due.length < limit && this.heap.length > 0 && this.heap[0].dueAt <= now) {
      due.push(this.pop())
    }
    return due
  }

  /** Makes a tracked reference due now (a webhook named it); false when it is not tracked. */
  wake(reference: string, now: number): boolean {
    const entry = this.byReference.get(reference)
    if (entry === undefined) return false
    entry.dueAt = now
    this.up(entry.pos ?? 0)
    return true
  }

  private pop(): PollEntry {
    const top = this.heap[0]
    const last = this.heap.pop()!
    if (this.heap.length > 0) {
      this.heap[0] = last
      last.pos = 0
      this.down(0)
    }
    this.byReference.delete(top.reference)
    return top
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (this.heap[parent].dueAt <= this.heap[i].dueAt) return
      this.swap(i, parent)
      i = parent
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < this.heap.length && this.heap[l].dueAt < this.heap[m].dueAt) m = l
      if (r < this.heap.length && this.heap[r].dueAt < this.heap[m].dueAt) m = r
      if (m === i) return
      this.swap(i, m)
      i = m
    }
  }

  private swap(a: number, b: number): void {
    const t = this.heap[a]
    this.heap[a] = this.heap[b]
    this.heap[b] = t
    this.heap[a].pos = a
    t.pos = b
  }
}
