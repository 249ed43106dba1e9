/** Applies due transitions and settlements: now on demand (clock advance), and from a background fiber. */
import { Effect, Schedule, type Scope } from "effect"
import type { VirtualClock } from "./Clock.ts"
import { advanceDue } from "./Payouts.ts"
import { settle, type SandboxState, type Txn } from "./State.ts"

export const makeProcessDue = (
  state: SandboxState,
  clock: VirtualClock,
  notify: (txns: ReadonlyArray<Txn>) => Effect.Effect<void>,
  settleDelay: number
): Effect.Effect<void> =>
  clock.now.pipe(
    Effect.map((now) => {
      const finished = advanceDue(state, now, settleDelay)
      settle(state, now, now)
      return finished
    }),
    Effect.flatMap((finished) => (finished.length === 0 ? Effect.void : notify(finished)))
  )

export const runProcessor = (processDue: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope> =>
  processDue.pipe(Effect.repeat(Schedule.spaced("20 millis")), Effect.asVoid, Effect.forkScoped, Effect.asVoid)
