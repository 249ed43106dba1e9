/** Payout state changes: reserve on acceptance, complete or release when due, refund on request. */
import { Either } from "effect"
import type { CustomerData, Outcome, Plan, SandboxState, Txn } from "./State.ts"
import { finishPayin, refundPayin } from "./Payins.ts"
import { popDue } from "./DueQueue.ts"
import { addTransaction, available, nextDueAt, nextIds, post, setStatus, txnOf, walletOf } from "./State.ts"

export interface PayoutInput {
  readonly amount: number
  readonly fee: number
  readonly currency: string
  readonly operator: string
  readonly phone: string
  readonly customer: CustomerData
  readonly description: string
  readonly details: Readonly<Record<string, unknown>> | null
  readonly callbackUrl: string
  readonly returnUrl: string
  readonly cancelUrl: string
}

export interface Insufficient {
  readonly available: number
  readonly required: number
}

export const DESCRIPTIONS: Record<string, string> = {
  pending: "Payout queued",
  processing: "Transfer initiated with the operator",
  completed: "Payout completed successfully",
  cancelled: "Payout cancelled",
  refunded: "Payout refunded"
}

/** Checks the available balance and reserves amount + fee in the same step (one Ref.modify: nothing between). */
export const createPayout = (
  state: SandboxState,
  input: PayoutInput,
  plan: Plan,
  at: number
): readonly [Either.Either<Txn, Insufficient>, SandboxState] => {
  const wallet = walletOf(state, input.currency, at)
  const required = input.amount + input.fee
  if (available(wallet) < required) return [Either.left({ available: available(wallet), required }), state]
  const [ids, numbered] = nextIds(state, at)
  const [txn, added] = addTransaction(numbered, {
    seq: ids.seq,
    id: ids.id,
    reference: ids.reference,
    externalId: ids.externalId,
    type: "payout",
    amount: input.amount,
    fee: input.fee,
    currency: input.currency,
    status: "pending",
    statusDescription: DESCRIPTIONS.pending,
    operator: input.operator,
    phone: input.phone,
    customer: input.customer,
    description: input.description,
    details: input.details,
    callbackUrl: input.callbackUrl,
    returnUrl: input.returnUrl,
    cancelUrl: input.cancelUrl,
    createdAt: at,
    updatedAt: at,
    plan
  })
  const reserved = post(added, { kind: "reserve", reference: txn.reference, currency: txn.currency, balance: 0, pending: 0, reserved: required }, at)
  return [Either.right(txn), reserved]
}

const finish = (state: SandboxState, txn: Txn, outcome: Outcome, description: string, at: number): readonly [Txn, SandboxState] => {
  const held = txn.amount + txn.fee
  if (outcome === "completed") {
    const completed = post(state, { kind: "complete", reference: txn.reference, currency: txn.currency, balance: -held, pending: 0, reserved: -held }, at)
    return setStatus(completed, txn, outcome, description, at)
  }
  const released = post(state, { kind: "release", reference: txn.reference, currency: txn.currency, balance: 0, pending: 0, reserved: -held }, at)
  return setStatus(released, { ...txn, fee: 0 }, outcome, description, at)
}

/** One due entry applied: the transaction if it reached its outcome. Stale entries change nothing. */
const applyDue = (state: SandboxState, reference: string, now: number, settleDelay?: number): readonly [Txn | undefined, SandboxState] => {
  const txn = txnOf(state, reference)
  const at = txn === undefined ? undefined : nextDueAt(txn)
  // Stale: the transaction finished or moved on since this entry was queued (its next one is queued).
  if (txn === undefined || at === undefined || at > now || txn.plan === null) return [undefined, state]
  const plan = txn.plan
  if (now >= plan.finalAt) {
    const finalAt = Math.max(plan.finalAt, txn.updatedAt)
    return txn.type === "payin" ? finishPayin(state, txn, plan.outcome, plan.description, finalAt, settleDelay) : finish(state, txn, plan.outcome, plan.description, finalAt)
  }
  if (txn.status !== "pending") return [undefined, state]
  const description = txn.type === "payin" ? "Awaiting the customer's confirmation" : DESCRIPTIONS.processing
  return [undefined, setStatus(state, txn, "processing", description, plan.processingAt)[1]]
}

/**
 * Applies every transition due at `now`, taking from the due queue only what is due; returns the
 * transactions that reached an outcome, in creation order (as a scan of the open set would find them).
 * Nothing due: the same state back, nothing allocated.
 */
export const advanceDue = (state: SandboxState, now: number, settleDelay?: number): readonly [Array<Txn>, SandboxState] => {
  const finished: Array<Txn> = []
  let current = state
  for (;;) {
    const [due, rest] = popDue(current.due, now)
    if (due === undefined) break
    const [done, next] = applyDue({ ...current, due: rest }, due.reference, now, settleDelay)
    if (done !== undefined) finished.push(done)
    current = next
  }
  return [finished.sort((a, b) => a.seq - b.seq), current]
}

export type RefundError = "not_found" | "not_refundable" | "insufficient"

export const refund = (state: SandboxState, reference: string, at: number): readonly [Either.Either<Txn, RefundError>, SandboxState] => {
  const txn = txnOf(state, reference)
  if (txn === undefined || txn.type === "adjustment") return [Either.left("not_found"), state]
  if (txn.type === "payin") return refundPayin(state, txn, at)
  if (txn.type !== "payout" || txn.status !== "completed") return [Either.left("not_refundable"), state]
  const held = txn.amount + txn.fee
  const refunded = post(state, { kind: "refund", reference, currency: txn.currency, balance: held, pending: 0, reserved: 0 }, at)
  const [updated, next] = setStatus(refunded, txn, "refunded", DESCRIPTIONS.refunded, at)
  return [Either.right(updated), next]
}
