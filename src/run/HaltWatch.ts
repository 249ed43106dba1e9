/**
 * The account's halt as a runner sees it (DESIGN 9): read from the store at most once per `maxAgeMs`,
 * and asked twice per payout (before the rate gate and right before the POST leaves). A plain cache
 * rather than `Effect.cachedWithTTL`, whose every hit goes through a synchronized ref and its lock:
 * about a twentieth of the runtime's work per payout. A read that is due is made once, under a lock;
 * callers that come meanwhile wait for it.
 */
import { Clock, Effect, Option } from "effect"
import type { Halt } from "../store/AccountModel.ts"
import { AccountRecords } from "../store/Sql/Account.ts"
import type { AccountId } from "../domain/Ids.ts"
import { GUARD_FIGURES_MAX_AGE_MS } from "../intake/Guards.ts"

export const makeHaltWatch = (accountId: AccountId, maxAgeMs = GUARD_FIGURES_MAX_AGE_MS) =>
  Effect.gen(function* () {
    const records = yield* AccountRecords
    const read = records.activeHalt(accountId).pipe(
      // A halt that cannot be read holds: better a run that waits than one that pays through a stop.
      Effect.catchAll((e) =>
        Effect.map(Clock.currentTimeMillis, (at) => Option.some<Halt>({ at, by: "payouts", reason: `the state store could not be read (${e.message})` }))
      )
    )
    const reading = yield* Effect.makeSemaphore(1)
    let last: { readonly value: Option.Option<Halt>; readonly at: number } | undefined
    const fresh = (now: number) => (last !== undefined && now - last.at < maxAgeMs ? last.value : undefined)
    // The time is taken before the read: a halt written during it is seen at the next read, not later.
    const refresh = reading.withPermits(1)(
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const known = fresh(now)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.map(read, (value) => {
          last = { value, at: now }
          return value
        })
      })
    )
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const known = fresh(now)
      return known === undefined ? refresh : Effect.succeed(known)
    })
  })
