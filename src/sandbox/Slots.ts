/**
 * At most `size` webhook attempts in flight, shared by the notifier's plain first attempts and its
 * Effect retries. Effect's Semaphore takes a permit only inside a fiber, and a fiber per webhook was
 * most of a webhook's cost. Waiting fibers are served in arrival order as the Semaphore serves them
 * (woken, each takes its slot when it runs, or waits again), and a plain take is refused while any
 * fiber waits or is woken, so no new webhook overtakes one already waiting.
 */
import { Effect } from "effect"

export interface Slots {
  /** Takes a slot now if one is free and nobody waits for one. */
  readonly tryTake: () => boolean
  readonly release: () => void
  /** Runs `self` holding a slot, waiting for one first. */
  readonly withSlot: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeSlots = (size: number): Slots => {
  let taken = 0
  // Woken fibers that have not taken their slot yet (one interrupted in between is only the shutdown's).
  let woken = 0
  const waiters = new Set<() => void>()

  const tryTake = () => {
    if (taken >= size || waiters.size > 0 || woken > 0) return false
    taken += 1
    return true
  }
  const wake = () => {
    for (const waiter of waiters) {
      if (taken + woken >= size) return
      waiter()
    }
  }
  const release = () => {
    taken -= 1
    if (waiters.size > 0) wake()
  }
  const takeWoken: Effect.Effect<void> = Effect.suspend(() => {
    woken -= 1
    if (taken >= size) return take
    taken += 1
    return Effect.void
  })
  const take: Effect.Effect<void> = Effect.async<void>((resume) => {
    if (taken < size && waiters.size === 0 && woken === 0) {
      taken += 1
      resume(Effect.void)
      return
    }
    const waiter = () => {
      waiters.delete(waiter)
      woken += 1
      resume(takeWoken)
    }
    waiters.add(waiter)
    return Effect.sync(() => {
      waiters.delete(waiter)
    })
  })
  const withSlot = <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(take), Effect.ensuring(restore(self), Effect.sync(release))))

  return { tryTake, release, withSlot }
}
