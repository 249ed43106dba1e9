/**
 * The money invariant, checked against the journal: wallets equal the journal's sums, reserved equals
 * the in-flight payouts' amount + fee, each transaction's net movement matches its status, and only
 * adjustments (and pay-ins) create money. Read-only: it looks at one snapshot of the state.
 */
import { entryViolation, type Figures, sumByCurrency, sumByReference, zero } from "./Journal.ts"
import { HashSet } from "effect"
import { journalOf, type SandboxState, transactionsOf, txnOf, type Txn } from "./State.ts"

const isOpen = (status: string) => status === "pending" || status === "processing"

const expectedNet = (txn: Txn): Figures | undefined => {
  const held = txn.amount + txn.fee
  if (txn.type === "adjustment") return { balance: txn.amount, pending: 0, reserved: 0 }
  if (txn.type === "payin") {
    const net = txn.amount - txn.fee
    if (txn.status !== "completed") return zero()
    return txn.settledAt === undefined ? { balance: 0, pending: net, reserved: 0 } : { balance: net, pending: 0, reserved: 0 }
  }
  if (isOpen(txn.status)) return { balance: 0, pending: 0, reserved: held }
  if (txn.status === "completed") return { balance: -held, pending: 0, reserved: 0 }
  return zero()
}

const same = (a: Figures, b: Figures) => a.balance === b.balance && a.pending === b.pending && a.reserved === b.reserved
const show = (f: Figures) => `balance ${f.balance}, pending ${f.pending}, reserved ${f.reserved}`

export const checkInvariants = (state: SandboxState): Array<string> => {
  const violations: Array<string> = []
  const journal = journalOf(state)
  const transactions = transactionsOf(state)
  journal.forEach((entry, i) => {
    if (entry.seq !== i + 1) violations.push(`journal entry ${i + 1} has sequence ${entry.seq}`)
    const bad = entryViolation(entry)
    if (bad !== undefined) violations.push(bad)
    if (entry.kind !== "settle" && txnOf(state, entry.reference) === undefined) {
      violations.push(`journal entry ${entry.seq} names unknown transaction ${entry.reference}`)
    }
  })

  const byCurrency = sumByCurrency(journal)
  const inFlight = new Map<string, number>()
  for (const txn of transactions) {
    if (txn.type === "payout" && isOpen(txn.status)) {
      inFlight.set(txn.currency, (inFlight.get(txn.currency) ?? 0) + txn.amount + txn.fee)
    }
    if (isOpen(txn.status) !== HashSet.has(state.open, txn.reference)) {
      violations.push(`${txn.reference} (${txn.status}) is ${isOpen(txn.status) ? "missing from" : "still in"} the open set`)
    }
    if (["failed", "cancelled", "expired"].includes(txn.status) && txn.fee !== 0) {
      violations.push(`${txn.reference} is ${txn.status} but charges a fee of ${txn.fee}`)
    }
  }
  for (const currency of new Set([...Object.keys(state.wallets), ...byCurrency.keys()])) {
    const wallet = state.wallets[currency]
    const figures = wallet === undefined ? zero() : { balance: wallet.balance, pending: wallet.pending, reserved: wallet.reserved }
    const journal = byCurrency.get(currency) ?? zero()
    if (!same(figures, journal)) violations.push(`${currency} wallet (${show(figures)}) differs from its journal (${show(journal)})`)
    if (figures.balance < 0 || figures.pending < 0 || figures.reserved < 0) violations.push(`${currency} wallet has a negative figure (${show(figures)})`)
    if (figures.balance - figures.reserved < 0) violations.push(`${currency} available balance is negative`)
    const held = inFlight.get(currency) ?? 0
    if (figures.reserved !== held) violations.push(`${currency} reserved ${figures.reserved} differs from in-flight payouts' amount + fee ${held}`)
  }

  const byReference = sumByReference(journal)
  for (const txn of transactions) {
    const expected = expectedNet(txn)
    const actual = byReference.get(txn.reference) ?? zero()
    if (expected !== undefined && !same(expected, actual)) {
      violations.push(`${txn.type} ${txn.reference} (${txn.status}) moved ${show(actual)}, expected ${show(expected)}`)
    }
  }
  return violations
}

export const invariantsView = (state: SandboxState) => {
  const violations = checkInvariants(state)
  return { ok: violations.length === 0, violations }
}
