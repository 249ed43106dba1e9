/** Funding, and settlement: a completed pay-in's net amount moves from pending to the balance. */
import { HashSet } from "effect"
import { addTransaction, nextIds, post, type SandboxState, txnOf, type Txn, updateTransaction } from "./State.ts"

export const fund = (state: SandboxState, currency: string, amount: number, at: number): readonly [Txn, SandboxState] => {
  const [ids, numbered] = nextIds(state, at)
  const [txn, added] = addTransaction(numbered, {
    ...ids,
    type: "adjustment",
    amount,
    fee: 0,
    currency,
    status: "completed",
    statusDescription: "Sandbox funding",
    operator: null,
    phone: null,
    customer: null,
    description: "Sandbox funding",
    details: null,
    callbackUrl: null,
    returnUrl: null,
    cancelUrl: null,
    createdAt: at,
    updatedAt: at,
    plan: null
  })
  return [txn, post(added, { kind: "adjustment", reference: txn.reference, currency, balance: amount, pending: 0, reserved: 0 }, at)]
}

/** Moves a completed pay-in's net amount from pending to the balance (settlement). */
export const settlePayin = (state: SandboxState, txn: Txn, at: number): readonly [number, SandboxState] => {
  const net = txn.amount - txn.fee
  const posted = post(state, { kind: "settle", reference: txn.reference, currency: txn.currency, balance: net, pending: -net, reserved: 0 }, at)
  return [net, updateTransaction(posted, { ...txn, settledAt: at })[1]]
}

/**
 * Settles every completed pay-in due by `dueBy` (all of them when omitted), in creation order;
 * totals per currency. Looks only at unsettled pay-ins, and not at all before the earliest is due.
 */
export const settle = (state: SandboxState, at: number, dueBy = Infinity): readonly [Array<{ currency: string; amount: number }>, SandboxState] => {
  if (HashSet.size(state.unsettled) === 0 || state.settleFrom > dueBy) return [[], state]
  const due: Array<Txn> = []
  const later = Array.from(state.unsettled).reduce((earliest, reference) => {
    const txn = txnOf(state, reference)
    if (txn === undefined) return earliest
    const settleAt = txn.settleAt ?? at
    if (settleAt > dueBy) return Math.min(earliest, settleAt)
    due.push(txn)
    return earliest
  }, Infinity)
  const totals = new Map<string, number>()
  const settled = due
    .sort((a, b) => a.seq - b.seq)
    .reduce((s, txn) => {
      const [net, next] = settlePayin(s, txn, at)
      totals.set(txn.currency, (totals.get(txn.currency) ?? 0) + net)
      return next
    }, state)
  return [[...totals].map(([currency, amount]) => ({ currency, amount })), { ...settled, settleFrom: later }]
}

/** Test-only: a deliberate bug, crediting a wallet without a journal entry. */
export const plantUnjournaledCredit = (state: SandboxState, currency: string, amount: number): SandboxState => ({
  ...state,
  wallets: { ...state.wallets, [currency]: { ...state.wallets[currency], balance: state.wallets[currency].balance + amount } }
})
