/**
 * One person's decision applied to one row (DESIGN 7, `payouts resolve`), under the batch's lease and
 * recorded as an event with who and why. The checks that keep a row from being paid twice live here,
 * once, whatever number of rows a decision names: a resend goes out only for an unknown row, while no
 * listed payout carries its token, with the listing of its days read completely, no account alarm and
 * no halt; an adoption only of a payout of this amount and currency that no other row holds. Results
 * (Applied) and refusals (ResolveRefusal.ts) are typed facts; the command line words them (src/cli/ResolveText.ts).
 */
import { Clock, Duration, Effect, Either, Option } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { checkPayoutAnswer, checkStatusRecord } from "../api/Plausible.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { Reference } from "../domain/Ids.ts"
import { fromWire } from "../domain/Money.ts"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import type { Fence, Row } from "../store/Model.ts"
import { stateOfStatus } from "../store/RowState.ts"
import { AccountRecords } from "../store/Sql/Account.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Claims } from "../store/Sql/Claims.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { payoutRequest } from "./PayoutBody.ts"
import { ResolveError, ResolveRefusal, RowRefusal } from "./ResolveRefusal.ts"

export type Decision =
  | { readonly _tag: "Show" }
  | { readonly _tag: "Adopt"; readonly reference: string }
  | { readonly _tag: "Resend" }
  | { readonly _tag: "Abandon" }
  | { readonly _tag: "Acknowledge" }

export type RowDecision = Exclude<Decision, { readonly _tag: "Show" }>

export interface RedirectUrls {
  readonly returnUrl: string
  readonly cancelUrl: string
  readonly callbackUrl: string | undefined
}

/** What a decision needs besides the row: whose lease, who decides and why, and the row's evidence. */
export interface DecisionContext {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly fence: Fence
  readonly by: string
  readonly reason: string
  readonly urls: RedirectUrls
  readonly leaseTtl: Duration.Duration
  /** Listed payouts carrying the row's token, from the sync just made. */
  readonly carrying: ReadonlyArray<MirroredPayout>
  /** Days of the row's intent whose listing could not be read completely: absence is not proven there. */
  readonly unreadDays: ReadonlyArray<string>
  readonly accountAlarm: string | undefined
}

/** What happened to one row, as facts the command line words (src/cli/ResolveText.ts). */
export type Applied =
  /** `status`: the service's, of the payout adopted or resent. */
  | { readonly line: number; readonly result: "adopted" | "resent"; readonly reference: string; readonly status: string }
  /** A resend answered with a record no payout of ours has (`anomaly` says why): it raised its own alarm. */
  | { readonly line: number; readonly result: "resent"; readonly reference: string; readonly anomaly: string }
  /** `problem`: the client's words for why the resend was not sent, refused or unanswered. */
  | { readonly line: number; readonly result: "not-sent" | "refused-by-service" | "no-answer"; readonly reference: null; readonly problem: string }
  | { readonly line: number; readonly result: "abandoned" | "acknowledged"; readonly reference: null }

export const refuse = (refusal: ResolveRefusal) => Effect.fail(new ResolveError({ refusal }))

/**
 * Why this decision cannot apply to this row, judged from the row alone (its state, its alarm), so a
 * decision over several rows is refused whole before anything is done or asked; undefined when it can.
 */
export const unfitFor = (decision: RowDecision, row: Row): RowRefusal | undefined => {
  switch (decision._tag) {
    case "Adopt":
    case "Resend":
    case "Abandon":
      return row.state === "unknown" ? undefined : RowRefusal.NotUnknown({ line: row.line, state: row.state, decision: decision._tag })
    case "Acknowledge":
      return row.alarm !== null ? undefined : RowRefusal.NoAlarm({ line: row.line })
  }
}

/**
 * Renews the lease before a row is decided: a decision over many rows (or after a person's answer)
 * may outlast the lease taken at the start. Returns the time the renewal started: the lease is ours
 * until then + TTL by the local clock.
 */
const renewLease = (ctx: DecisionContext) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const start = yield* Clock.currentTimeMillis
    const ok = yield* batches.renewLease(ctx.accountId, ctx.batchId, ctx.fence, ctx.leaseTtl)
    if (!ok) {
      return yield* new ResolveError({ refusal: ResolveRefusal.LeaseLost({ batchId: ctx.batchId }) })
    }
    return start
  })

const adopt = Effect.fn("Resolve.adopt")(function* (ctx: DecisionContext, row: Row, reference: string, who: string) {
  const [reads, claims] = yield* Effect.all([Rows, Claims])
  const client = yield* PaymentClient
  const record = yield* client.status(reference).pipe(Effect.mapError((e) => new ResolveError({ refusal: ResolveRefusal.StatusUnread({ reference, error: e.message }) })))
  if (record.type !== "payout" || record.currency !== row.currency || fromWire(record.amount, record.currency) !== row.amountMinor) {
    return yield* refuse(ResolveRefusal.NotThisPayout({ reference, type: record.type, amount: record.amount, currency: client.scrub(record.currency) }))
  }
  const fee = checkStatusRecord(record, { reference, amountMinor: row.amountMinor, currency: row.currency }, client.scrub)
  if (Either.isLeft(fee)) return yield* refuse(ResolveRefusal.Implausible({ reference, problem: fee.left }))
  const taken = yield* reads.findRowByReference(ctx.accountId, reference)
  if (Option.isSome(taken) && !(taken.value.batchId === ctx.batchId && taken.value.idx === row.idx)) {
    return yield* refuse(ResolveRefusal.TakenByAnother({ reference, line: taken.value.line, batchId: taken.value.batchId }))
  }
  yield* claims.recordTransition(ctx.accountId, ctx.batchId, {
    idx: row.idx,
    from: ["unknown"],
    to: stateOfStatus(record.status),
    reference: Reference.make(reference),
    feeMinor: fee.right,
    source: "operator",
    detail: `adopted ${reference} (${record.status}) ${who}`
  }, ctx.fence)
  return { line: row.line, result: "adopted", reference, status: record.status } satisfies Applied
})

/** Why a resend of this row must not go out now (a payout may exist, or nothing proves it absent); undefined when it may. */
export const resendBlock = Effect.fn("Resolve.resendBlock")(function* (ctx: DecisionContext, row: Row) {
  const { line } = row
  const halt = yield* Effect.flatMap(AccountRecords, (records) => records.activeHalt(ctx.accountId))
  if (Option.isSome(halt)) return RowRefusal.Halted({ line, by: halt.value.by, reason: halt.value.reason })
  if (ctx.carrying.length > 0) return RowRefusal.Carried({ line, references: ctx.carrying.map((p) => p.reference) })
  if (ctx.accountAlarm !== undefined) return RowRefusal.AccountAlarm({ line, alarm: ctx.accountAlarm })
  if (ctx.unreadDays.length > 0) return RowRefusal.UnreadDays({ line, days: ctx.unreadDays })
  return undefined
})

const resend = Effect.fn("Resolve.resend")(function* (ctx: DecisionContext, row: Row, who: string, leaseFrom: number) {
  const [claims, mirror] = yield* Effect.all([Claims, MirrorStore])
  const client = yield* PaymentClient
  const { accountId, batchId } = ctx
  const blocked = yield* resendBlock(ctx, row)
  if (blocked !== undefined) return yield* refuse(ResolveRefusal.Unfit({ rows: [blocked] }))
  const claimed = yield* claims.claimForResend(accountId, batchId, [row.idx], `resend ${who}`, ctx.fence)
  if (claimed.length === 0) return yield* refuse(ResolveRefusal.ChangedMeanwhile({ line: row.line }))
  // The send goes out only while the lease renewed just before surely holds (a minute's margin).
  const leaseHolds = Effect.map(Clock.currentTimeMillis, (now) => now < leaseFrom + Duration.toMillis(ctx.leaseTtl) - 60_000)
  const sent = yield* client.payout(payoutRequest(claimed[0], ctx.urls), leaseHolds).pipe(Effect.either)
  const fee = sent._tag === "Right" ? checkPayoutAnswer(sent.right, row, client.scrub) : undefined
  if (sent._tag === "Right" && fee !== undefined && Either.isLeft(fee)) {
    // Sent, answered with a reference, and an answer no payout of ours has: in flight, under alarm.
    yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "submitted", reference: sent.right.reference, source: "response", detail: `resent ${who}` }, ctx.fence)
    yield* mirror.setRowAlarm(accountId, batchId, row.idx, `anomaly: ${fee.left}`, [sent.right.reference])
    return { line: row.line, result: "resent", reference: sent.right.reference, anomaly: fee.left } satisfies Applied
  }
  if (sent._tag === "Right") {
    yield* claims.recordTransition(accountId, batchId, {
      idx: row.idx,
      from: ["submitting"],
      to: stateOfStatus(sent.right.status),
      reference: sent.right.reference,
      ...(fee === undefined || Either.isLeft(fee) || fee.right === undefined ? {} : { feeMinor: fee.right }),
      source: "response",
      detail: `resent ${who}`
    }, ctx.fence)
    return { line: row.line, result: "resent", reference: sent.right.reference, status: sent.right.status } satisfies Applied
  }
  const error = sent.left
  if (error._tag === "NotSent" || error._tag === "RateLimited" || error._tag === "AuthError") {
    yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "unknown", error: error.message, source: "operator", detail: `resend not sent: ${error.message}` }, ctx.fence)
    return { line: row.line, result: "not-sent", reference: null, problem: error.message } satisfies Applied
  }
  if (error._tag === "ValidationError" || error._tag === "InsufficientBalance") {
    yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "failed", error: error.message, source: "response", detail: `resend refused ${who}` }, ctx.fence)
    return { line: row.line, result: "refused-by-service", reference: null, problem: error.message } satisfies Applied
  }
  yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "unknown", error: error.message, source: "response", detail: `resend ${who}: no answer` }, ctx.fence)
  return { line: row.line, result: "no-answer", reference: null, problem: error.message } satisfies Applied
})

/** Applies one decision to one row; its alarm is cleared once decided. */
export const decide = Effect.fn("Resolve.decide")(function* (ctx: DecisionContext, row: Row, decision: RowDecision) {
  const [claims, mirror] = yield* Effect.all([Claims, MirrorStore])
  const unfit = unfitFor(decision, row)
  if (unfit !== undefined) return yield* refuse(ResolveRefusal.Unfit({ rows: [unfit] }))
  const leaseFrom = yield* renewLease(ctx)
  const who = `by ${ctx.by}: ${ctx.reason}`
  let applied: Applied
  switch (decision._tag) {
    case "Adopt":
      applied = yield* adopt(ctx, row, decision.reference, who)
      break
    case "Resend":
      applied = yield* resend(ctx, row, who, leaseFrom)
      break
    case "Abandon":
      yield* claims.recordTransition(ctx.accountId, ctx.batchId, { idx: row.idx, from: ["unknown"], to: "abandoned", error: `abandoned ${who}`, source: "operator", detail: `abandoned ${who}` }, ctx.fence)
      applied = { line: row.line, result: "abandoned", reference: null }
      break
    case "Acknowledge":
      applied = { line: row.line, result: "acknowledged", reference: null }
      break
  }
  // A resend answered with an implausible record has just raised its own alarm: it stays.
  if (!("anomaly" in applied)) yield* mirror.setRowAlarm(ctx.accountId, ctx.batchId, row.idx, null, [])
  return applied
})
