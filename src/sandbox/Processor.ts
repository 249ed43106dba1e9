/** Applies due transitions and settlements: now on demand (clock advance), and from a background fiber. */
import { Effect, Ref, Schedule, type Scope } from "effect"
import type { VirtualClock } from "./Clock.ts"
import { advanceDue } from "./Payouts.ts"
import { settle } from "./Settlement.ts"
import type { Txn, World } from "./State.ts"

export const makeProcessDue = (
  world: World,
  clock: VirtualClock,
  notify: (txns: ReadonlyArray<Txn>) => Effect.Effect<void>,
  settleDelay: number
): Effect.Effect<void> =>
  clock.now.pipe(
    Effect.flatMap((now) =>
      Ref.modify(world, (state) => {
        const [finished, advanced] = advanceDue(state, now, settleDelay)
        return [finished, settle(advanced, now, now)[1]]
      })
    ),
    Effect.flatMap((finished) => (finished.length === 0 ? Effect.void : notify(finished)))
  )

export const runProcessor = (processDue: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope> =>
  processDue.pipe(Effect.repeat(Schedule.spaced("20 millis")), Effect.asVoid, Effect.forkScoped, Effect.asVoid)
