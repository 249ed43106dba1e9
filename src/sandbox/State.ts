/**
 * The sandbox's whole state as one immutable value (minor units, virtual epoch milliseconds), held
 * in a Ref: every operation is a pure function from the state to its result and the next state, so
 * one Ref.modify applies it atomically. Every money movement goes through `post`, which updates the
 * wallet and appends to the journal together. The large parts are persistent collections (HashMap,
 * HashSet, List, a red-black tree): a request costs a few O(log n) steps, never a copy of them all.
 */
import { HashMap, HashSet, List, type Ref } from "effect"
import { WALLET_CURRENCIES } from "../domain/Operators.ts"
import { type DueQueue, makeDueQueue, pushDue } from "./DueQueue.ts"
import type { JournalEntry, Movement } from "./Journal.ts"

export interface WalletState {
  readonly id: string
  readonly currency: string
  readonly balance: number
  readonly pending: number
  readonly reserved: number
  readonly lastUpdated: number
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
  readonly fee: number
  readonly currency: string
  readonly status: string
  readonly statusDescription: string
  readonly operator: string | null
  readonly phone: string | null
  readonly customer: CustomerData | null
  readonly description: string
  readonly details: Readonly<Record<string, unknown>> | null
  readonly callbackUrl: string | null
  readonly returnUrl: string | null
  readonly cancelUrl: string | null
  readonly createdAt: number
  readonly updatedAt: number
  readonly plan: Plan | null
  /** Pay-ins: the checkout or prompt lifetime's end (virtual ms). */
  readonly expiresAt?: number
  /** Completed pay-ins: when their net amount is due to settle, and when it did. */
  readonly settleAt?: number
  readonly settledAt?: number
}

export interface SandboxState {
  readonly instance: string
  readonly seq: number
  /** One per currency (a handful): a plain record, copied when a figure changes. */
  readonly wallets: Readonly<Record<string, WalletState>>
  readonly transactions: HashMap.HashMap<string, Txn>
  /** References of payouts (later pay-ins) still moving: pending or processing. */
  readonly open: HashSet.HashSet<string>
  /** Newest entry first (a prepend is O(1)); `journalSize` entries, seq 1 to journalSize. */
  readonly journal: List.List<JournalEntry>
  readonly journalSize: number
  /** References changed since the last save, newest first, repeats and all (persistence only; never serialised). */
  readonly touched: List.List<string>
  /** When open transactions next need the processor (derived from them; never serialised). */
  readonly due: DueQueue
  /** Completed pay-ins not yet settled, and no earlier settleAt among them than `settleFrom` (derived). */
  readonly unsettled: HashSet.HashSet<string>
  readonly settleFrom: number
}

/** The sandbox's state as its routes share it. */
export type World = Ref.Ref<SandboxState>

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
  transactions: HashMap.empty(),
  open: HashSet.empty(),
  journal: List.empty(),
  journalSize: 0,
  touched: List.empty(),
  due: makeDueQueue(),
  unsettled: HashSet.empty(),
  settleFrom: Infinity
})

/** The wallet of a currency (a fresh one, not yet in the state, for a currency without one). */
export const walletOf = (state: SandboxState, currency: string, now: number): WalletState =>
  state.wallets[currency] ?? newWallet(state.instance, currency, now)

export const txnOf = (state: SandboxState, reference: string): Txn | undefined => {
  const found = HashMap.get(state.transactions, reference)
  return found._tag === "Some" ? found.value : undefined
}

/** The journal oldest first, as an array (the read-only views). */
export const journalOf = (state: SandboxState): Array<JournalEntry> => List.toArray(List.reverse(state.journal))

/** The journal's entries after the first `from`, oldest first (a save takes what is new). */
export const journalAfter = (state: SandboxState, from: number): Array<JournalEntry> =>
  List.toArray(List.take(state.journal, Math.max(0, state.journalSize - from))).reverse()

/** Every transaction in creation order (the read-only views). */
export const transactionsOf = (state: SandboxState): Array<Txn> => Array.from(HashMap.values(state.transactions)).sort((a, b) => a.seq - b.seq)

export const touch = (state: SandboxState, reference: string): SandboxState => ({ ...state, touched: List.prepend(state.touched, reference) })

/** The references changed since the last save, each once. */
export const touchedOf = (state: SandboxState): ReadonlySet<string> => new Set(state.touched)

export const untouched = (state: SandboxState): SandboxState => (List.isNil(state.touched) ? state : { ...state, touched: List.empty() })

/** The only way money moves: the wallet and the journal change together. */
export const post = (state: SandboxState, movement: Movement, at: number): SandboxState => {
  const wallet = walletOf(state, movement.currency, at)
  const entry: JournalEntry = {
    kind: movement.kind,
    reference: movement.reference,
    currency: movement.currency,
    balance: movement.balance,
    pending: movement.pending,
    reserved: movement.reserved,
    seq: state.journalSize + 1,
    at
  }
  return {
    ...state,
    wallets: {
      ...state.wallets,
      [movement.currency]: {
        ...wallet,
        balance: wallet.balance + movement.balance,
        pending: wallet.pending + movement.pending,
        reserved: wallet.reserved + movement.reserved,
        lastUpdated: Math.max(wallet.lastUpdated, at)
      }
    },
    journal: List.prepend(state.journal, entry),
    journalSize: entry.seq,
    touched: List.prepend(state.touched, movement.reference)
  }
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

/**
 * Keeps the derived indexes (open set, due queue, unsettled pay-ins) in step with a transaction,
 * `was` its version before (undefined when new). Each set is touched only when membership can
 * change: these are the costly steps of a request.
 */
const index = (state: SandboxState, txn: Txn, was: Txn | undefined): SandboxState => {
  const at = nextDueAt(txn)
  const open = isOpen(txn.status)
  const unsettled = isUnsettled(txn)
  return {
    ...state,
    open: open === (was !== undefined && isOpen(was.status)) ? state.open : open ? HashSet.add(state.open, txn.reference) : HashSet.remove(state.open, txn.reference),
    due: at === undefined ? state.due : pushDue(state.due, { at, seq: txn.seq, reference: txn.reference }),
    // Only a pay-in is ever in the unsettled set.
    unsettled: txn.type !== "payin" ? state.unsettled : unsettled ? HashSet.add(state.unsettled, txn.reference) : HashSet.remove(state.unsettled, txn.reference),
    settleFrom: unsettled ? Math.min(state.settleFrom, txn.settleAt ?? -Infinity) : state.settleFrom
  }
}

/** A transaction's new version (`was` the one it replaces): stored, indexed, marked as changed. */
const store = (state: SandboxState, txn: Txn, was: Txn | undefined): readonly [Txn, SandboxState] => [
  txn,
  index({ ...state, transactions: HashMap.set(state.transactions, txn.reference, txn), touched: List.prepend(state.touched, txn.reference) }, txn, was)
]

/** A new transaction (its ids from `nextIds`). */
export const addTransaction = (state: SandboxState, txn: Txn): readonly [Txn, SandboxState] => store(state, txn, undefined)

/** A transaction's fields change without a new status (a settlement's date). */
export const updateTransaction = (state: SandboxState, txn: Txn): readonly [Txn, SandboxState] => store(state, txn, txn)

/** Every status change goes through here, so persistence and the processor see it; `txn` is its version before. */
export const setStatus = (state: SandboxState, txn: Txn, status: string, description: string, at: number): readonly [Txn, SandboxState] =>
  store(state, { ...txn, status, statusDescription: description, updatedAt: at }, txn)

export const available = (wallet: WalletState): number => wallet.balance - wallet.reserved

const ymd = (at: number) => new Date(at).toISOString().slice(0, 10).replace(/-/g, "")

export interface Ids {
  readonly seq: number
  readonly id: string
  readonly reference: string
  readonly externalId: string
}

export const nextIds = (state: SandboxState, at: number): readonly [Ids, SandboxState] => {
  const seq = state.seq + 1
  const n = String(seq).padStart(6, "0")
  const ids = {
    seq,
    id: `txn_${state.instance}${n}`,
    reference: `TXN${ymd(at)}${state.instance.toUpperCase()}${n}`,
    externalId: `EXT${state.instance.toUpperCase()}${n}`
  }
  return [ids, { ...state, seq }]
}

/** A transaction read back from a data file: in the state and its indexes, not marked as changed. */
export const restoreTransaction = (state: SandboxState, txn: Txn): SandboxState =>
  index({ ...state, transactions: HashMap.set(state.transactions, txn.reference, txn) }, txn, undefined)
