/** What every part of one run shares: where it is, how it was asked to behave, and its live state. */
import { Clock, Context, Effect, Layer, Queue, Ref } from "effect"
import type { OnInsufficient } from "./Preflight.ts"
import { DEFAULT_FEE_ESTIMATE, type FeeEstimate } from "../domain/FeeEstimate.ts"
import type { SafeguardSettings } from "./SafeguardSettings.ts"
import type { Fence } from "../store/Model.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export interface RunSettings {
  readonly concurrency: number
  readonly pollIntervalMs: number
  readonly pollMaxMs: number
  readonly trackTimeoutMs: number
  /** Shortest wait after an ambiguous POST ended before a resend (raised to its floor, DESIGN 7 rule 3). */
  readonly reconcileGraceMs: number
  /** After this long without proof either way an unknown row becomes an alarm (default 2h). */
  readonly reconcileDeadlineMs?: number
  /** `never` leaves every unknown row that is not found to a person. */
  readonly resendUnknown?: "after" | "never"
  /** The batch lease's time to live (default 30s): part of the grace floor. */
  readonly leaseTtlMs?: number
  /** The client's request timeout: part of the grace floor. */
  readonly requestTimeoutMs?: number
  /** A webhook receiver is listening: webhooks lead, and the first poll waits pollMaxMs as a safety net. */
  readonly webhooks?: boolean
  /** `--fee-estimate`, a rule P%[,min=M] (named for the flat percentage it was; callers read it as the rule). */
  readonly feePercent: FeeEstimate
  readonly onInsufficient: OnInsufficient
  /** The callback_url sent; undefined: the --listen receiver's URL, else a placeholder. */
  readonly callbackUrl: string | undefined
  readonly returnUrl: string
  readonly cancelUrl: string
  /** Stop rule, circuit breaker and stuck age (defaults in SafeguardSettings.ts). */
  readonly safeguards?: Partial<SafeguardSettings>
}

export type StopReason =
  | { readonly _tag: "Auth"; readonly message: string }
  | { readonly _tag: "Unreachable"; readonly message: string }
  | { readonly _tag: "LeaseLost" }

export interface RunContextShape {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly settings: RunSettings
  /** References named by webhooks (the receiver starts before the run's parts): the tracker looks them up at once. */
  readonly wakeups: Queue.Queue<string>
  /** Set once the run must stop submitting (401, service unreachable, lease taken over). */
  readonly stop: Ref.Ref<StopReason | undefined>
  /** Currencies whose wallet cannot cover the rows left (DESIGN.md section 6). */
  readonly stoppedCurrencies: Ref.Ref<ReadonlySet<string>>
  /** Whether any payout POST left this process: decides between exit 2 and 3 on a refusal. */
  readonly sentAny: Ref.Ref<boolean>
  /** Rows under alarm (a person must decide): never resent, reported; kept in the store too. */
  readonly alarms: Ref.Ref<ReadonlyMap<number, RowAlarm>>
  /** The account's open alarm (the listing cannot prove absence): no automatic resend at all. */
  readonly accountAlarm: Ref.Ref<string | undefined>
  /** This runner's lease owner name: intents it wrote are its own to resend (rule 5). */
  readonly owner: string
  /** The lease this run holds: every claim and row transition is written only under it. */
  readonly fence: Fence
  /** Until when (local clock, epoch ms) the lease is surely ours: its last renewal's start + TTL. */
  readonly leaseUntil: Ref.Ref<number>
}

export interface RunContextInput {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly settings: RunSettings
  /** The lease the run holds (a dry run holds none: its fence matches no lease, so any row write it attempted would be refused). */
  readonly fence: Fence
  readonly wakeups?: Queue.Queue<string>
}

/** Where one run is, how it was asked to behave, and its live state: provided per run to all its parts. */
export class RunContext extends Context.Tag("run/RunContext")<RunContext, RunContextShape>() {
  static readonly layer = (input: RunContextInput): Layer.Layer<RunContext> =>
    Layer.effect(
      RunContext,
      Effect.gen(function* () {
        return {
          accountId: input.accountId,
          batchId: input.batchId,
          settings: input.settings,
          wakeups: input.wakeups ?? (yield* Queue.unbounded<string>()),
          stop: yield* Ref.make<StopReason | undefined>(undefined),
          stoppedCurrencies: yield* Ref.make<ReadonlySet<string>>(new Set()),
          sentAny: yield* Ref.make(false),
          alarms: yield* Ref.make<ReadonlyMap<number, RowAlarm>>(new Map()),
          accountAlarm: yield* Ref.make<string | undefined>(undefined),
          owner: input.fence.owner,
          fence: input.fence,
          leaseUntil: yield* Ref.make(Number.POSITIVE_INFINITY)
        }
      })
    )
}

export interface RowAlarm {
  readonly reason: string
  readonly references: ReadonlyArray<string>
}

/**
 * Whether this runner may still send (DESIGN 7, fencing): the lease, as last renewed, outlives now by
 * a margin. Checked by the local clock in the same tick as each send, so a process that was paused
 * past its lease (Ctrl-Z, a closed lid, a paused VM) sends nothing when it wakes.
 */
export const leaseValid = (ctx: RunContextShape): Effect.Effect<boolean> => {
  const ttl = ctx.settings.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
  const margin = Math.min(5_000, ttl / 4)
  return Effect.flatMap(Ref.get(ctx.leaseUntil), (until) => Effect.map(Clock.currentTimeMillis, (now) => until - margin > now))
}

export const DEFAULT_RECONCILE_DEADLINE_MS = 2 * 60 * 60 * 1000
export const DEFAULT_LEASE_TTL_MS = 30_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

/**
 * A run's settings when nobody says otherwise: the CLI's flag defaults (README), the base the tests
 * and the bench override. No callback_url of our own: the --listen receiver's, else a placeholder.
 */
export const DEFAULT_RUN_SETTINGS = {
  concurrency: 8,
  pollIntervalMs: 5_000,
  pollMaxMs: 5 * 60_000,
  trackTimeoutMs: 26 * 60 * 60_000,
  reconcileGraceMs: 30 * 60_000,
  reconcileDeadlineMs: DEFAULT_RECONCILE_DEADLINE_MS,
  resendUnknown: "after",
  leaseTtlMs: DEFAULT_LEASE_TTL_MS,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  feePercent: DEFAULT_FEE_ESTIMATE,
  onInsufficient: "abort",
  callbackUrl: undefined,
  returnUrl: "http://localhost/payouts/return",
  cancelUrl: "http://localhost/payouts/cancel"
} satisfies RunSettings
