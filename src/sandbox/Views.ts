/**
 * Internal records to the spec's wire shapes, amounts in major units. Each view is written directly as
 * its schema's encoded side (src/api/Schemas.ts): the types keep them in step with the spec without
 * a schema pass per response, which the hot routes cannot afford.
 */
import type { StatusRecord, Wallet, WalletTransaction } from "../api/Schemas.ts"
import { toWire } from "../domain/Money.ts"
import { iso } from "./Clock.ts"
import type { Txn, WalletState } from "./State.ts"

export const walletView = (w: WalletState): typeof Wallet.Encoded => ({
  id: w.id,
  currency: w.currency,
  balance: toWire(w.balance, w.currency),
  pending_balance: toWire(w.pending, w.currency),
  reserved_balance: toWire(w.reserved, w.currency),
  available_balance: toWire(w.balance - w.reserved, w.currency),
  last_updated: iso(w.lastUpdated)
})

const netAmount = (txn: Txn) => (txn.type === "payin" ? txn.amount - txn.fee : txn.amount + txn.fee)

export const transactionView = (txn: Txn): typeof WalletTransaction.Encoded => ({
  id: txn.id,
  reference: txn.reference,
  type: txn.type,
  amount: toWire(txn.amount, txn.currency),
  fee: toWire(txn.fee, txn.currency),
  net_amount: toWire(netAmount(txn), txn.currency),
  currency: txn.currency,
  status: txn.status,
  operator: txn.operator,
  customer_name: txn.customer?.name ?? null,
  description: txn.description,
  created_at: iso(txn.createdAt)
})

export const statusRecordView = (txn: Txn): typeof StatusRecord.Encoded => ({
  reference: txn.reference,
  external_transaction_id: txn.externalId,
  amount: toWire(txn.amount, txn.currency),
  currency: txn.currency,
  type: txn.type,
  operator: txn.operator,
  status: txn.status,
  status_description: txn.statusDescription,
  fee: toWire(txn.fee, txn.currency),
  created_at: iso(txn.createdAt),
  updated_at: iso(txn.updatedAt),
  payment_details: txn.details === null ? {} : { ...txn.details },
  customer: txn.customer === null ? null : { name: txn.customer.name, phone: txn.customer.phone, email: txn.customer.email }
})

export const payoutView = (txn: Txn) => ({
  reference: txn.reference,
  description: txn.description,
  amount: toWire(txn.amount, txn.currency),
  fee: toWire(txn.fee, txn.currency),
  currency: txn.currency,
  phone: txn.phone,
  operator: txn.operator,
  status: txn.status,
  created_at: iso(txn.createdAt),
  updated_at: iso(txn.updatedAt),
  payout_details: txn.details ?? {}
})
