/**
 * This process's lock per currency wallet: its jobs of one currency run one at a time. Apart from
 * Workers.ts, whose locks in the store keep other workers off the same wallet.
 */
import { Effect, SynchronizedRef } from "effect"

export const makeCurrencyLocks = Effect.gen(function* () {
  /** One lock per currency wallet: this process's jobs of a currency run one at a time. */
  const locks = yield* SynchronizedRef.make<ReadonlyMap<string, Effect.Semaphore>>(new Map())

  const lock = (currency: string) =>
    SynchronizedRef.modifyEffect(locks, (all) => {
      const found = all.get(currency)
      return found !== undefined
        ? Effect.succeed([found, all] as const)
        : Effect.map(Effect.makeSemaphore(1), (made) => [made, new Map(all).set(currency, made)] as const)
    })

  /** Holds the wallets of every currency of the batch (in a fixed order: no deadlock). */
  const exclusive = <A, E2, R2>(currencies: ReadonlyArray<string>, effect: Effect.Effect<A, E2, R2>) =>
    [...currencies].sort().reduceRight((inner, currency) => Effect.flatMap(lock(currency), (semaphore) => semaphore.withPermits(1)(inner)), effect)

  return { exclusive } as const
})
