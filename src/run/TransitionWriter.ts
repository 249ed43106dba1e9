/**
 * Row updates after a response or a poll, written in groups: one transaction (one fsync) for many
 * rows, so durability does not serialise the run. Losing a queued update in a crash is safe: the
 * row stays `submitting` and is reconciled by its token; the intent itself is never queued here.
 */
import { Cause, Chunk, Deferred, Duration, Effect, Queue, Ref } from "effect"
import { Claims } from "../store/Sql/Claims.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import type { Fence, Transition } from "../store/Model.ts"
import { RunEvent, tell } from "./Notices.ts"
import { RunContext } from "./RunContext.ts"
import { Safeguards } from "./Safeguards.ts"

type Item =
  | { readonly _tag: "Transition"; readonly transition: Transition }
  | { readonly _tag: "Flush"; readonly done: Deferred.Deferred<void> }

export interface TransitionWriterShape {
  readonly record: (transition: Transition) => Effect.Effect<void>
  /** Resolves once everything recorded before it is in the store. */
  readonly flush: Effect.Effect<void>
}

const MAX_GROUP = 512
const LINGER = Duration.millis(10)

/**
 * `fence` is the run's lease: every group is written only while the batch still carries it (DESIGN 7).
 * A group refused because another runner took the lease over is dropped (that runner reconciles those
 * rows by their tokens) and `onFenced` runs, so the run stops; later groups are dropped the same way.
 * Any other store failure ends the run as a defect at the next flush, never as a silent hang.
 */
export const makeTransitionWriter = (claims: Claims, accountId: AccountId, batchId: BatchId, fence: Fence, onFenced: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Item>()
    const broken = yield* Ref.make<Cause.Cause<never> | undefined>(undefined)
    const settle = (items: ReadonlyArray<Item>) =>
      Effect.flatMap(Ref.get(broken), (cause) =>
        Effect.forEach(
          items,
          (item) => (item._tag === "Flush" ? (cause === undefined ? Deferred.succeed(item.done, undefined) : Deferred.failCause(item.done, cause)) : Effect.void),
          { discard: true }
        )
      )
    const writeGroup = Effect.fn("TransitionWriter.write")(function* (items: ReadonlyArray<Item>) {
        const transitions = items.flatMap((i) => (i._tag === "Transition" ? [i.transition] : []))
        if (transitions.length > 0 && (yield* Ref.get(broken)) === undefined) {
          yield* claims.recordTransitions(accountId, batchId, transitions, fence).pipe(
            Effect.catchAll((error) =>
              error.reason === "Fenced"
                ? Effect.zipRight(
                    tell(RunEvent.UpdatesNotWritten({ count: transitions.length })),
                    onFenced
                  )
                : Ref.set(broken, Cause.die(error))
            )
          )
        }
        yield* settle(items)
      })
    // After the first update, wait a moment for more: answers arrive one by one, and a group of one
    // would cost a commit (an fsync that blocks the process) per row. A flush is written at once.
    const takeGroup = Effect.flatMap(Queue.takeBetween(queue, 1, MAX_GROUP), (first) =>
      first.length >= MAX_GROUP || Chunk.some(first, (item) => item._tag === "Flush")
        ? Effect.succeed(first)
        : Effect.sleep(LINGER).pipe(
            Effect.zipRight(Queue.takeUpTo(queue, MAX_GROUP - first.length)),
            Effect.map((rest) => Chunk.appendAll(first, rest))
          )
    )
    yield* takeGroup.pipe(
      Effect.flatMap((chunk) => writeGroup([...chunk])),
      Effect.forever,
      Effect.forkScoped
    )
    const writer: TransitionWriterShape = {
      record: (transition) => Queue.offer(queue, { _tag: "Transition", transition }).pipe(Effect.asVoid),
      flush: Effect.gen(function* () {
        const done = yield* Deferred.make<void>()
        yield* Queue.offer(queue, { _tag: "Flush", done })
        yield* Deferred.await(done)
      })
    }
    return writer
  })

/** The run's writer: fenced by its lease, stopping the run when the lease is taken over, and feeding the safeguards. */
export class TransitionWriter extends Effect.Service<TransitionWriter>()("run/TransitionWriter", {
  scoped: Effect.gen(function* () {
    const ctx = yield* RunContext
    const safeguards = yield* Safeguards
    const claims = yield* Claims
    const writer = yield* makeTransitionWriter(claims, ctx.accountId, ctx.batchId, ctx.fence, Ref.set(ctx.stop, { _tag: "LeaseLost" }))
    return {
      record: (t: Transition) => Effect.zipRight(writer.record(t), safeguards.observe(t)),
      flush: writer.flush
    } satisfies TransitionWriterShape
  })
}) {}
