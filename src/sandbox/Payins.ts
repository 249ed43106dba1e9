/**
 * Pay-in state changes: created pending; completed credits amount - fee to pending_balance (settled
 * later); failed, cancelled and expired move nothing and charge no fee; a refund takes the net back.
 */
import { Either } from "effect"
import { DAY } from "./Clock.ts"
import type { CustomerData, Outcome, Plan, SandboxState, Txn } from "./State.ts"
import { addTransaction, available, nextIds, post, setStatus, walletOf } from "./State.ts"

export const MOBILE_MONEY_LIFETIME = 15 * 60 * 1000
export const CARD_CHECKOUT_LIFETIME = 30 * 60 * 1000

export interface PayinInput {
  readonly amount: number
  readonly fee: number
  readonly currency: string
  readonly operator: string
  readonly phone: string | null
  readonly customer: CustomerData
  readonly description: string
  readonly details: Readonly<Record<string, unknown>> | null
  readonly callbackUrl: string
  readonly returnUrl: string
  readonly cancelUrl: string
}

export const PAYIN_DESCRIPTIONS = {
  mobile: "Payment request sent; awaiting the customer's confirmation",
  card: "Checkout page open; awaiting the customer's card details",
  processing: "Payment being processed",
  refunded: "Payment refunded to the customer"
} as const

export const createPayin = (state: SandboxState, input: PayinInput, plan: Plan, expiresAt: number, at: number): readonly [Txn, SandboxState] => {
  const [ids, numbered] = nextIds(state, at)
  return addTransaction(numbered, {
    ...ids,
    ...input,
    type: "payin",
    status: "pending",
    statusDescription: input.phone === null ? PAYIN_DESCRIPTIONS.card : PAYIN_DESCRIPTIONS.mobile,
    createdAt: at,
    updatedAt: at,
    plan,
    expiresAt
  })
}

/** A pay-in reaches its outcome; a completed one credits pending and is due to settle after `settleDelay`. */
export const finishPayin = (
  state: SandboxState,
  txn: Txn,
  outcome: Outcome,
  description: string,
  at: number,
  settleDelay = DAY
): readonly [Txn, SandboxState] => {
  if (outcome !== "completed") return setStatus(state, { ...txn, fee: 0 }, outcome, description, at)
  const net = txn.amount - txn.fee
  const credited = post(state, { kind: "payin", reference: txn.reference, currency: txn.currency, balance: 0, pending: net, reserved: 0 }, at)
  return setStatus(credited, { ...txn, settleAt: at + settleDelay }, outcome, description, at)
}

/** The customer's action on the checkout page: processing, then the outcome at once. */
export const checkoutOutcome = (
  state: SandboxState,
  txn: Txn,
  outcome: "completed" | "failed" | "cancelled",
  description: string,
  at: number,
  settleDelay: number
): readonly [Txn, SandboxState] => {
  const [processing, next] = setStatus(state, txn, "processing", PAYIN_DESCRIPTIONS.processing, at)
  return finishPayin(next, processing, outcome, description, at, settleDelay)
}

/** A completed pay-in is refunded: its net leaves pending (not yet settled) or the available balance. */
export const refundPayin = (
  state: SandboxState,
  txn: Txn,
  at: number
): readonly [Either.Either<Txn, "not_refundable" | "insufficient">, SandboxState] => {
  if (txn.status !== "completed") return [Either.left("not_refundable"), state]
  const net = txn.amount - txn.fee
  const settled = txn.settledAt !== undefined
  if (settled && available(walletOf(state, txn.currency, at)) < net) return [Either.left("insufficient"), state]
  const posted = post(state, {
    kind: "payin_refund",
    reference: txn.reference,
    currency: txn.currency,
    balance: settled ? -net : 0,
    pending: settled ? 0 : -net,
    reserved: 0
  }, at)
  const [refunded, next] = setStatus(posted, { ...txn, settledAt: undefined, settleAt: undefined }, "refunded", PAYIN_DESCRIPTIONS.refunded, at)
  return [Either.right(refunded), next]
}
