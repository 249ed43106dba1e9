/** What every part of one run shares: where it is, how it was asked to behave, and its live state. */
import { Effect, Ref } from "effect"
import type { OnInsufficient } from "./Preflight.ts"
import type { KnownSubmission } from "./ReconcilePlan.ts"
import { PollQueue } from "./PollQueue.ts"
import { makeSafeguards, type SafeguardSettings, type Safeguards } from "./Safeguards.ts"
import type { TransitionWriter } from "./TransitionWriter.ts"
import type { StateStore } from "../store/StateStore.ts"

export interface RunSettings {
  readonly concurrency: number
  readonly pollIntervalMs: number
  readonly pollMaxMs: number
  readonly trackTimeoutMs: number
  readonly reconcileGraceMs: number
  /** A webhook receiver is listening: webhooks lead, and the first poll waits pollMaxMs as a safety net. */
  readonly webhooks?: boolean
  readonly feePercent: number
  readonly onInsufficient: OnInsufficient
  /** The callback_url sent; undefined: the --listen receiver's URL, else a placeholder. */
  readonly callbackUrl: string | undefined
  readonly returnUrl: string
  readonly cancelUrl: string
  /** Stop rule, circuit breaker and stuck age (defaults in Safeguards.ts). */
  readonly safeguards?: Partial<SafeguardSettings>
}

export type StopReason =
  | { readonly _tag: "Auth"; readonly message: string }
  | { readonly _tag: "Unreachable"; readonly message: string }
  | { readonly _tag: "LeaseLost" }

export interface RunContext {
  readonly accountId: string
  readonly batchId: string
  readonly settings: RunSettings
  readonly writer: TransitionWriter
  readonly polls: PollQueue
  /** Set once the run must stop submitting (401, service unreachable, lease taken over). */
  readonly stop: Ref.Ref<StopReason | undefined>
  /** Currencies whose wallet cannot cover the rows left (DESIGN.md section 6). */
  readonly stoppedCurrencies: Ref.Ref<ReadonlySet<string>>
  /** Whether any payout POST left this process: decides between exit 2 and 3 on a refusal. */
  readonly sentAny: Ref.Ref<boolean>
  /** Rows under alarm (several payouts carry their token): never resent, reported. */
  readonly alarms: Ref.Ref<ReadonlyMap<number, ReadonlyArray<string>>>
  /** The latest payouts this process sent, for "a payout of ours sent after the ambiguous one". */
  readonly recent: Array<KnownSubmission>
  /** Stop rule and per-operator circuit breaker; fed by every outcome `writer` records. */
  readonly safeguards: Safeguards
}

const RECENT = 1_000

export const noteSubmitted = (ctx: RunContext, submission: KnownSubmission): void => {
  ctx.recent.push(submission)
  if (ctx.recent.length > 2 * RECENT) ctx.recent.splice(0, ctx.recent.length - RECENT)
}

export const makeRunContext = (
  accountId: string,
  batchId: string,
  settings: RunSettings,
  writer: TransitionWriter
): Effect.Effect<RunContext, never, StateStore> =>
  Effect.gen(function* () {
    const safeguards = yield* makeSafeguards(accountId, batchId, settings.safeguards)
    return {
      accountId,
      batchId,
      settings,
      writer: { record: (t) => Effect.zipRight(writer.record(t), safeguards.observe(t)), flush: writer.flush },
      polls: new PollQueue(),
      stop: yield* Ref.make<StopReason | undefined>(undefined),
      stoppedCurrencies: yield* Ref.make<ReadonlySet<string>>(new Set()),
      sentAny: yield* Ref.make(false),
      alarms: yield* Ref.make<ReadonlyMap<number, ReadonlyArray<string>>>(new Map()),
      recent: [],
      safeguards
    }
  })
