/**
 * The due times of open transactions, ordered by (at, seq) in a persistent red-black tree: the
 * processor takes only what is due instead of looking at every open transaction on each tick, in
 * O(log n). Ties go to the lower seq, so transactions due together are handled in the order they
 * were created. An entry may be stale (its transaction moved on since); whoever takes it checks the
 * transaction again.
 */
import { Option, Order, RedBlackTree } from "effect"

export interface Due {
  readonly at: number
  readonly seq: number
  readonly reference: string
}

export type DueQueue = RedBlackTree.RedBlackTree<Due, true>

const byTimeThenSeq: Order.Order<Due> = Order.combine(
  Order.mapInput(Order.number, (d: Due) => d.at),
  Order.mapInput(Order.number, (d: Due) => d.seq)
)

export const makeDueQueue = (): DueQueue => RedBlackTree.empty(byTimeThenSeq)

export const pushDue = (queue: DueQueue, due: Due): DueQueue => RedBlackTree.insert(queue, due, true)

/** The earliest entry if it is due by `now`, and the queue without it; else undefined and the queue as it is. */
export const popDue = (queue: DueQueue, now: number): readonly [Due | undefined, DueQueue] => {
  const first = RedBlackTree.first(queue)
  if (Option.isNone(first) || first.value[0].at > now) return [undefined, queue]
  return [first.value[0], RedBlackTree.removeFirst(queue, first.value[0])]
}
