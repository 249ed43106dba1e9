/**
 * One person's decision applied to one row (DESIGN 7, `payouts resolve`), under the batch's lease and
 * recorded as an event with who and why. The checks that keep a row from being paid twice live here,
 * once, whatever number of rows a decision names: a resend goes out only for an unknown row, while no
 * listed payout carries its token, with the listing of its days read completely, no account alarm and
 * no halt; an adoption only of a payout of this amount and currency that no other row holds.
 */
import { Clock, Data, Duration, Effect, Either, Option } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { checkPayoutAnswer, checkStatusRecord, quote } from "../api/Plausible.ts"
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

export class ResolveError extends Data.TaggedError("ResolveError")<{
  readonly message: string
  /** The lease is lost: no further row of the decision may be touched. */
  readonly stop?: boolean
}> {}

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

/** What happened to one row. */
export interface Applied {
  readonly line: number
  readonly result: "adopted" | "resent" | "not-sent" | "refused-by-service" | "no-answer" | "abandoned" | "acknowledged"
  readonly reference: string | null
  readonly detail: string
}

const fail = (message: string) => Effect.fail(new ResolveError({ message }))

/**
 * Why this decision cannot apply to this row, judged from the row alone (its state, its alarm), so a
 * decision over several rows is refused whole before anything is done or asked; undefined when it can.
 */
export const unfitFor = (decision: RowDecision, row: Row): string | undefined => {
  switch (decision._tag) {
    case "Adopt":
      return row.state === "unknown" ? undefined : `line ${row.line} is ${row.state}, not unknown: nothing to adopt`
    case "Resend":
      return row.state === "unknown" ? undefined : `line ${row.line} is ${row.state}: only an unknown row can be resent`
    case "Abandon":
      return row.state === "unknown" ? undefined : `line ${row.line} is ${row.state}: only an unknown row can be abandoned`
    case "Acknowledge":
      return row.alarm !== null ? undefined : `line ${row.line} has no alarm to acknowledge`
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
      return yield* new ResolveError({ message: `the batch's lease was taken by another process; nothing more is decided (look again with payouts resolve ${ctx.batchId})`, stop: true })
    }
    return start
  })

const adopt = Effect.fn("Resolve.adopt")(function* (ctx: DecisionContext, row: Row, reference: string, who: string) {
  const [reads, claims] = yield* Effect.all([Rows, Claims])
  const client = yield* PaymentClient
  const record = yield* client.status(reference).pipe(Effect.mapError((e) => new ResolveError({ message: `status of ${reference}: ${e.message}` })))
  if (record.type !== "payout" || record.currency !== row.currency || fromWire(record.amount, record.currency) !== row.amountMinor) {
    return yield* fail(`${reference} is a ${record.type} of ${quote(record.amount)} ${quote(record.currency, client.scrub)}, not this row's payout`)
  }
  const fee = checkStatusRecord(record, { reference, amountMinor: row.amountMinor, currency: row.currency }, client.scrub)
  if (Either.isLeft(fee)) return yield* fail(`${reference}: ${fee.left}; not adopted`)
  const taken = yield* reads.findRowByReference(ctx.accountId, reference)
  if (Option.isSome(taken) && !(taken.value.batchId === ctx.batchId && taken.value.idx === row.idx)) {
    return yield* fail(`${reference} already belongs to line ${taken.value.line} of batch ${taken.value.batchId}`)
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
  return { line: row.line, result: "adopted", reference, detail: `line ${row.line}: adopted ${reference} (${record.status})` } satisfies Applied
})

/** Why a resend of this row must not go out now (a payout may exist, or nothing proves it absent); undefined when it may. */
export const resendBlock = Effect.fn("Resolve.resendBlock")(function* (ctx: DecisionContext, row: Row) {
  const halt = yield* Effect.flatMap(AccountRecords, (records) => records.activeHalt(ctx.accountId))
  if (Option.isSome(halt)) {
    return `line ${row.line}: refused, the account is halted by ${halt.value.by} (${halt.value.reason}); lift it first with payouts halt --lift`
  }
  if (ctx.carrying.length > 0) return `line ${row.line}: refused, ${ctx.carrying.map((p) => p.reference).join(", ")} carries its token; adopt it instead`
  if (ctx.accountAlarm !== undefined) {
    return `line ${row.line}: refused, the account alarm says the listing cannot prove absence (${ctx.accountAlarm}); check the listing by hand and clear it with --listing-ok first`
  }
  if (ctx.unreadDays.length > 0) {
    return `line ${row.line}: refused, the listing of ${ctx.unreadDays.join(", ")} could not be read completely, so nothing proves its payout absent; look again later`
  }
  return undefined
})

const resend = Effect.fn("Resolve.resend")(function* (ctx: DecisionContext, row: Row, who: string, leaseFrom: number) {
  const [claims, mirror] = yield* Effect.all([Claims, MirrorStore])
  const client = yield* PaymentClient
  const { accountId, batchId } = ctx
  const blocked = yield* resendBlock(ctx, row)
  if (blocked !== undefined) return yield* fail(blocked)
  const claimed = yield* claims.claimForResend(accountId, batchId, [row.idx], `resend ${who}`, ctx.fence)
  if (claimed.length === 0) return yield* fail(`line ${row.line} changed meanwhile; look again`)
  // The send goes out only while the lease renewed just before surely holds (a minute's margin).
  const leaseHolds = Effect.map(Clock.currentTimeMillis, (now) => now < leaseFrom + Duration.toMillis(ctx.leaseTtl) - 60_000)
  const sent = yield* client.payout(payoutRequest(claimed[0], ctx.urls), leaseHolds).pipe(Effect.either)
  const fee = sent._tag === "Right" ? checkPayoutAnswer(sent.right, row, client.scrub) : undefined
  const done = (result: Applied["result"], reference: string | null, detail: string): Applied => ({ line: row.line, result, reference, detail: `line ${row.line}: ${detail}` })
  if (sent._tag === "Right" && fee !== undefined && Either.isLeft(fee)) {
    // Sent, answered with a reference, and an answer no payout of ours has: in flight, under alarm.
    yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "submitted", reference: sent.right.reference, source: "response", detail: `resent ${who}` }, ctx.fence)
    yield* mirror.setRowAlarm(accountId, batchId, row.idx, `anomaly: ${fee.left}`, [sent.right.reference])
    return done("resent", sent.right.reference, `resent, ${sent.right.reference}; ALARM: ${fee.left}`)
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
    return done("resent", sent.right.reference, `resent, ${sent.right.reference} (${sent.right.status})`)
  }
  const error = sent.left
  if (error._tag === "NotSent" || error._tag === "RateLimited" || error._tag === "AuthError") {
    yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "unknown", error: error.message, source: "operator", detail: `resend not sent: ${error.message}` }, ctx.fence)
    return done("not-sent", null, `the resend was not sent (${error.message}); the row stays unknown`)
  }
  if (error._tag === "ValidationError" || error._tag === "InsufficientBalance") {
    yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "failed", error: error.message, source: "response", detail: `resend refused ${who}` }, ctx.fence)
    return done("refused-by-service", null, `the service refused the resend: ${error.message}`)
  }
  yield* claims.recordTransition(accountId, batchId, { idx: row.idx, from: ["submitting"], to: "unknown", error: error.message, source: "response", detail: `resend ${who}: no answer` }, ctx.fence)
  return done("no-answer", null, `resent, but no answer (${error.message}): it is unknown again`)
})

/** Applies one decision to one row; its alarm is cleared once decided. */
export const decide = Effect.fn("Resolve.decide")(function* (ctx: DecisionContext, row: Row, decision: RowDecision) {
  const [claims, mirror] = yield* Effect.all([Claims, MirrorStore])
  const unfit = unfitFor(decision, row)
  if (unfit !== undefined) return yield* fail(unfit)
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
      applied = { line: row.line, result: "abandoned", reference: null, detail: `line ${row.line}: abandoned (never retried automatically)` }
      break
    case "Acknowledge":
      applied = { line: row.line, result: "acknowledged", reference: null, detail: `line ${row.line}: alarm acknowledged` }
      break
  }
  // A resend answered with an implausible record has just raised its own alarm: it stays.
  if (!(applied.result === "resent" && applied.detail.includes("ALARM:"))) yield* mirror.setRowAlarm(ctx.accountId, ctx.batchId, row.idx, null, [])
  return applied
})
