/**
 * The sandbox's whole state as plain serialisable data (minor units, virtual epoch milliseconds).
 * Every money movement goes through `post`, which updates the wallet and appends to the journal.
 * Operations are synchronous, so each one is atomic inside the single-threaded event loop.
 */
import { WALLET_CURRENCIES } from "../domain/Operators.ts"
import { type DueQueue, makeDueQueue, pushDue } from "./DueQueue.ts"
import type { JournalEntry, Movement } from "./Journal.ts"

export interface WalletState {
  readonly id: string
  readonly currency: string
  balance: number
  pending: number
  reserved: number
  lastUpdated: number
}

export interface CustomerData {
  readonly name: string
  readonly phone: string
  readonly email: string
}

export type Outcome = "completed" | "failed" | "cancelled" | "expired"

export interface Plan {
  readonly processingAt: number
  readonly finalAt: number
  readonly outcome: Outcome
  readonly description: string
}

export type TxnType = "payout" | "payin" | "adjustment"

export interface Txn {
  readonly seq: number
  readonly id: string
  readonly reference: string
  readonly externalId: string
  readonly type: TxnType
  readonly amount: number
  fee: number
  readonly currency: string
  status: string
  statusDescription: string
  readonly operator: string | null
  readonly phone: string | null
  readonly customer: CustomerData | null
  readonly description: string
  readonly details: Readonly<Record<string, unknown>> | null
  readonly callbackUrl: string | null
  readonly returnUrl: string | null
  readonly cancelUrl: string | null
  readonly createdAt: number
  updatedAt: number
  readonly plan: Plan | null
  /** Pay-ins: the checkout or prompt lifetime's end (virtual ms). */
  readonly expiresAt?: number
  /** Completed pay-ins: when their net amount is due to settle, and when it did. */
  settleAt?: number
  settledAt?: number
}

export interface SandboxState {
  readonly instance: string
  seq: number
  readonly wallets: Record<string, WalletState>
  readonly transactions: Record<string, Txn>
  /** References of payouts (later pay-ins) still moving: pending or processing. */
  readonly open: Record<string, true>
  readonly journal: Array<JournalEntry>
  /** References changed since the last save (persistence only; never serialised). */
  readonly touched: Set<string>
  /** When open transactions next need the processor (derived from them; never serialised). */
  readonly due: DueQueue
  /** Completed pay-ins not yet settled, and no earlier settleAt among them than `settleFrom` (derived). */
  readonly unsettled: Set<string>
  settleFrom: number
}

const newWallet = (instance: string, currency: string, now: number): WalletState => ({
  id: `wal_${currency.toLowerCase()}_${instance}`,
  currency,
  balance: 0,
  pending: 0,
  reserved: 0,
  lastUpdated: now
})

export const makeState = (instance: string, now: number): SandboxState => ({
  instance,
  seq: 0,
  wallets: Object.fromEntries(WALLET_CURRENCIES.map((currency) => [currency, newWallet(instance, currency, now)])),
  transactions: {},
  open: {},
  journal: [],
  touched: new Set(),
  due: makeDueQueue(),
  unsettled: new Set(),
  settleFrom: Infinity
})

export const walletOf = (state: SandboxState, currency: string, now: number): WalletState => {
  const existing = state.wallets[currency]
  if (existing !== undefined) return existing
  const created = newWallet(state.instance, currency, now)
  state.wallets[currency] = created
  return created
}

/** The only way money moves: the wallet and the journal change together. */
export const post = (state: SandboxState, movement: Movement, at: number): void => {
  const wallet = walletOf(state, movement.currency, at)
  wallet.balance += movement.balance
  wallet.pending += movement.pending
  wallet.reserved += movement.reserved
  wallet.lastUpdated = Math.max(wallet.lastUpdated, at)
  state.journal.push({
    kind: movement.kind,
    reference: movement.reference,
    currency: movement.currency,
    balance: movement.balance,
    pending: movement.pending,
    reserved: movement.reserved,
    seq: state.journal.length + 1,
    at
  })
  state.touched.add(movement.reference)
}

export const isOpen = (status: string) => status === "pending" || status === "processing"

export const isUnsettled = (txn: Txn) => txn.type === "payin" && txn.status === "completed" && txn.settledAt === undefined

/** When an open transaction next changes by itself: its processing time while pending, else its outcome's. */
export const nextDueAt = (txn: Txn): number | undefined =>
  txn.plan === null || !isOpen(txn.status)
    ? undefined
    : txn.status === "pending"
      ? Math.min(txn.plan.processingAt, txn.plan.finalAt)
      : txn.plan.finalAt

/** Keeps the derived indexes (open set, due queue, unsettled pay-ins) in step with a transaction. */
const index = (state: SandboxState, txn: Txn): void => {
  if (isOpen(txn.status)) state.open[txn.reference] = true
  else delete state.open[txn.reference]
  const at = nextDueAt(txn)
  if (at !== undefined) pushDue(state.due, { at, seq: txn.seq, reference: txn.reference })
  if (isUnsettled(txn)) {
    state.unsettled.add(txn.reference)
    state.settleFrom = Math.min(state.settleFrom, txn.settleAt ?? -Infinity)
  } else state.unsettled.delete(txn.reference)
}

/** Every status change goes through here, so persistence and the processor see it. */
export const setStatus = (state: SandboxState, txn: Txn, status: string, description: string, at: number): void => {
  txn.status = status
  txn.statusDescription = description
  txn.updatedAt = at
  index(state, txn)
  state.touched.add(txn.reference)
}

export const available = (wallet: WalletState): number => wallet.balance - wallet.reserved

const ymd = (at: number) => new Date(at).toISOString().slice(0, 10).replace(/-/g, "")

export const nextIds = (state: SandboxState, at: number) => {
  state.seq += 1
  const n = String(state.seq).padStart(6, "0")
  return {
    seq: state.seq,
    id: `txn_${state.instance}${n}`,
    reference: `TXN${ymd(at)}${state.instance.toUpperCase()}${n}`,
    externalId: `EXT${state.instance.toUpperCase()}${n}`
  }
}

export const addTransaction = (state: SandboxState, txn: Txn): Txn => {
  state.transactions[txn.reference] = txn
  state.touched.add(txn.reference)
  index(state, txn)
  return txn
}

/** A transaction read back from a data file: in the state and its indexes, not marked as changed. */
export const restoreTransaction = (state: SandboxState, txn: Txn): void => {
  state.transactions[txn.reference] = txn
  index(state, txn)
}

export const fund = (state: SandboxState, currency: string, amount: number, at: number): Txn => {
  const ids = nextIds(state, at)
  const txn = addTransaction(state, {
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
  post(state, { kind: "adjustment", reference: txn.reference, currency, balance: amount, pending: 0, reserved: 0 }, at)
  return txn
}

/** Moves a completed pay-in's net amount from pending to the balance (settlement). */
export const settlePayin = (state: SandboxState, txn: Txn, at: number): number => {
  const net = txn.amount - txn.fee
  post(state, { kind: "settle", reference: txn.reference, currency: txn.currency, balance: net, pending: -net, reserved: 0 }, at)
  txn.settledAt = at
  state.unsettled.delete(txn.reference)
  return net
}

/**
 * Settles every completed pay-in due by `dueBy` (all of them when omitted), in creation order;
 * totals per currency. Looks only at unsettled pay-ins, and not at all before the earliest is due.
 */
export const settle = (state: SandboxState, at: number, dueBy = Infinity): Array<{ currency: string; amount: number }> => {
  if (state.unsettled.size === 0 || state.settleFrom > dueBy) return []
  const totals = new Map<string, number>()
  const due: Array<Txn> = []
  let later = Infinity
  for (const reference of state.unsettled) {
    const txn = state.transactions[reference]
    const settleAt = txn.settleAt ?? at
    if (settleAt <= dueBy) due.push(txn)
    else later = Math.min(later, settleAt)
  }
  for (const txn of due.sort((a, b) => a.seq - b.seq)) {
    totals.set(txn.currency, (totals.get(txn.currency) ?? 0) + settlePayin(state, txn, at))
  }
  state.settleFrom = later
  return [...totals].map(([currency, amount]) => ({ currency, amount }))
}

/** Test-only: a deliberate bug, crediting a wallet without a journal entry. */
export const plantUnjournaledCredit = (state: SandboxState, currency: string, amount: number): void => {
  state.wallets[currency].balance += amount
}
