/** Payout state changes: reserve on acceptance, complete or release when due, refund on request. */
import { Either } from "effect"
import type { CustomerData, Outcome, Plan, SandboxState, Txn } from "./State.ts"
import { finishPayin, refundPayin } from "./Payins.ts"
import { popDue } from "./DueQueue.ts"
import { addTransaction, available, nextDueAt, nextIds, post, setStatus, walletOf } from "./State.ts"

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

export const createPayout = (
  state: SandboxState,
  input: PayoutInput,
  plan: Plan,
  at: number
): Either.Either<Txn, Insufficient> => {
  const wallet = walletOf(state, input.currency, at)
  const required = input.amount + input.fee
  if (available(wallet) < required) return Either.left({ available: available(wallet), required })
  const ids = nextIds(state, at)
  const txn = addTransaction(state, {
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
  post(state, { kind: "reserve", reference: txn.reference, currency: txn.currency, balance: 0, pending: 0, reserved: required }, at)
  return Either.right(txn)
}

const finish = (state: SandboxState, txn: Txn, outcome: Outcome, description: string, at: number) => {
  const held = txn.amount + txn.fee
  if (outcome === "completed") {
    post(state, { kind: "complete", reference: txn.reference, currency: txn.currency, balance: -held, pending: 0, reserved: -held }, at)
  } else {
    post(state, { kind: "release", reference: txn.reference, currency: txn.currency, balance: 0, pending: 0, reserved: -held }, at)
    txn.fee = 0
  }
  setStatus(state, txn, outcome, description, at)
}

/**
 * Applies every transition due at `now`, taking from the due queue only what is due; returns the
 * transactions that reached an outcome, in creation order (as a scan of the open set would find them).
 */
export const advanceDue = (state: SandboxState, now: number, settleDelay?: number): Array<Txn> => {
  const finished: Array<Txn> = []
  for (let due = popDue(state.due, now); due !== undefined; due = popDue(state.due, now)) {
    const txn = state.transactions[due.reference]
    const at = txn === undefined ? undefined : nextDueAt(txn)
    // Stale: the transaction finished or moved on since this entry was queued (its next one is queued).
    if (txn === undefined || at === undefined || at > now || txn.plan === null) continue
    const plan = txn.plan
    if (now >= plan.finalAt) {
      const finalAt = Math.max(plan.finalAt, txn.updatedAt)
      if (txn.type === "payin") finishPayin(state, txn, plan.outcome, plan.description, finalAt, settleDelay)
      else finish(state, txn, plan.outcome, plan.description, finalAt)
      finished.push(txn)
    } else if (txn.status === "pending") {
      setStatus(state, txn, "processing", txn.type === "payin" ? "Awaiting the customer's confirmation" : DESCRIPTIONS.processing, plan.processingAt)
    }
  }
  return finished.sort((a, b) => a.seq - b.seq)
}

export type RefundError = "not_found" | "not_refundable" | "insufficient"

export const refund = (state: SandboxState, reference: string, at: number): Either.Either<Txn, RefundError> => {
  const txn = state.transactions[reference]
  if (txn === undefined || txn.type === "adjustment") return Either.left("not_found")
  if (txn.type === "payin") return refundPayin(state, txn, at)
  if (txn.type !== "payout" || txn.status !== "completed") return Either.left("not_refundable")
  const held = txn.amount + txn.fee
  post(state, { kind: "refund", reference, currency: txn.currency, balance: held, pending: 0, reserved: 0 }, at)
  setStatus(state, txn, "refunded", DESCRIPTIONS.refunded, at)
  return Either.right(txn)
}
