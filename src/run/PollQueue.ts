/**
 * Which reference to look up next: an immutable priority queue on due time (a persistent red-black
 * tree), so a million tracked rows cost O(log n) per poll rather than a scan per tick or a copy per push.
 */
import { HashMap, Option, Order, RedBlackTree } from "effect"

export interface PollEntry {
  readonly idx: number
  readonly reference: string
  /** The row's own amount and currency: a status answer is held against them (api/Plausible.ts). */
  readonly amountMinor: number | null
  readonly currency: string
  readonly dueAt: number
  readonly interval: number
  readonly since: number
}

/** An entry's key in the tree: its due time, then the order it was queued in (so keys are unique). */
interface Slot {
  readonly entry: PollEntry
  readonly seq: number
}

const bySlot: Order.Order<Slot> = Order.make((a, b) => {
  const d = a.entry.dueAt - b.entry.dueAt
  return d < 0 ? -1 : d > 0 ? 1 : a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0
})

export interface PollQueue {
  readonly byDue: RedBlackTree.RedBlackTree<Slot, PollEntry>
  /** Each queued reference's slot, kept so a webhook can wake an entry without a scan. */
  readonly byReference: HashMap.HashMap<string, Slot>
  readonly seq: number
}

export const empty: PollQueue = { byDue: RedBlackTree.empty(bySlot), byReference: HashMap.empty(), seq: 0 }

export const size = (q: PollQueue): number => RedBlackTree.size(q.byDue)

export const has = (q: PollQueue, reference: string): boolean => HashMap.has(q.byReference, reference)

const insert = (q: PollQueue, byReference: HashMap.HashMap<string, Slot>, entry: PollEntry): PollQueue => {
  const slot: Slot = { entry, seq: q.seq }
  return {
    byDue: RedBlackTree.insert(q.byDue, slot, entry),
    byReference: HashMap.set(byReference, entry.reference, slot),
    seq: q.seq + 1
  }
}

/** Queues an entry; a reference already queued is left as it is. */
export const push = (q: PollQueue, entry: PollEntry): PollQueue =>
  HashMap.has(q.byReference, entry.reference) ? q : insert(q, q.byReference, entry)

export const nextDueAt = (q: PollQueue): Option.Option<number> =>
  Option.map(RedBlackTree.first(q.byDue), ([slot]) => slot.entry.dueAt)

/** Takes every entry due at `now`, at most `limit`, in due order: what was taken, and what is left. */
export const takeDue = (q: PollQueue, now: number, limit: number): readonly [ReadonlyArray<PollEntry>, PollQueue] => {
  const due: Array<PollEntry> = []
  const slots: Array<Slot> = []
  for (const [slot, entry] of q.byDue) {
    if (due.length >= limit || entry.dueAt > now) break
    due.push(entry)
    slots.push(slot)
  }
  if (due.length === 0) return [due, q]
  let byDue = q.byDue
  for (const slot of slots) byDue = RedBlackTree.removeFirst(byDue, slot)
  const byReference = HashMap.mutate(q.byReference, (m) => {
    for (const entry of due) HashMap.remove(m, entry.reference)
  })
  return [due, { byDue, byReference, seq: q.seq }]
}

/**
 * Makes a queued reference due now (a webhook named it): None when it is not queued. One already due
 * keeps its place, ahead of what came due after it.
 */
export const wake = (q: PollQueue, reference: string, now: number): Option.Option<PollQueue> =>
  Option.map(HashMap.get(q.byReference, reference), (slot) => {
    if (slot.entry.dueAt <= now) return q
    return insert({ ...q, byDue: RedBlackTree.removeFirst(q.byDue, slot) }, q.byReference, { ...slot.entry, dueAt: now })
  })
