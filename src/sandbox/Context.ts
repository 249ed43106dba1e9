/** What every route of the sandbox shares: state, clock, settings, faults and webhooks, built once per start. */
import { Context, type Effect, type Fiber, type Random } from "effect"
import type { VirtualClock } from "./Clock.ts"
import type { FaultState } from "./FaultWorld.ts"
import type { FeeSchedule } from "./Fees.ts"
import type { Txn, World } from "./State.ts"

export interface Settings {
  readonly key: string
  readonly secret: string
  /** More credentials of the same account (a key rotation): each works like key and secret. */
  readonly extraCredentials?: ReadonlyArray<{ readonly key: string; readonly secret: string }>
  readonly fees: FeeSchedule
  /** Virtual seconds from acceptance to the outcome of an ordinary payout. */
  readonly payoutDelaySeconds: number
  /** Virtual seconds before the delayed test number succeeds. */
  readonly delayedPayoutSeconds: number
  readonly failureRatio: number
  /** Virtual seconds from acceptance to the outcome of an ordinary mobile-money pay-in. */
  readonly payinDelaySeconds: number
  /** Virtual seconds from a pay-in's completion to its settlement (pending -> balance). */
  readonly settlementDelaySeconds: number
}

export class SandboxContext extends Context.Tag("sandbox/SandboxContext")<
  SandboxContext,
  {
    /** The sandbox's state: one immutable value, changed only by Ref.modify/update with pure functions. */
    readonly state: World
    readonly clock: VirtualClock
    readonly settings: Settings
    readonly faults: FaultState
    /** Seeded draws in [0, 1) deciding outcomes (the failure ratio), apart from the faults' draws so a seed replays both. */
    readonly outcomes: Random.Random
    /** Sends the outcome webhook of each transaction, in the background. */
    readonly notify: (txns: ReadonlyArray<Txn>) => Effect.Effect<void>
    /** Applies every transition due now and notifies. */
    readonly processDue: Effect.Effect<void>
    /** The `onPayoutCommitted` hook of the options (the soak's), else nothing. */
    readonly payoutCommitted: (txn: Txn) => Effect.Effect<void>
    /** Saves what changed when a data file is in use (else does nothing). */
    readonly persist: Effect.Effect<void>
    /**
     * Runs work that must finish even if the request that started it is interrupted (the client went
     * away): a fiber of the sandbox's own lifetime, stopped only when the sandbox closes.
     */
    readonly background: <A>(work: Effect.Effect<A>) => Effect.Effect<Fiber.RuntimeFiber<A>>
  }
>() {}
