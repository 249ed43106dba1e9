/**
 * A binary min-heap of due times: the processor takes only what is due instead of looking at every
 * open transaction on each tick. Ties go to the lower seq, so transactions due together are handled
 * in the order they were created. An entry may be stale (its transaction moved on since); whoever
 * takes it checks the transaction again.
 */
export interface Due {
  readonly at: number
  readonly seq: number
  readonly reference: string
}

export interface DueQueue {
  readonly heap: Array<Due>
}

export const makeDueQueue = (): DueQueue => ({ heap: [] })

const before = (a: Due, b: Due) => a.at < b.at || (a.at === b.at && a.seq < b.seq)

export const pushDue = (queue: DueQueue, due: Due): void => {
  const heap = queue.heap
  let i = heap.length
  heap.push(due)
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (!before(heap[i], heap[parent])) break
    ;[heap[i], heap[parent]] = [heap[parent], heap[i]]
    i = parent
  }
}

/** Removes and returns the earliest entry if it is due by `now`. */
export const popDue = (queue: DueQueue, now: number): Due | undefined => {
  const heap = queue.heap
  const top = heap[0]
  if (top === undefined || top.at > now) return undefined
  const last = heap.pop()
  if (last !== undefined && heap.length > 0) {
    heap[0] = last
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let least = i
      if (left < heap.length && before(heap[left], heap[least])) least = left
      if (right < heap.length && before(heap[right], heap[least])) least = right
      if (least === i) break
      ;[heap[i], heap[least]] = [heap[least], heap[i]]
      i = least
    }
  }
  return top
}
