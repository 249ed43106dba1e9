/** Spec-faithful JSON samples of every wire shape (payment-api-v1.md field tables). */
export const customer = { name: "Awa Diallo", phone: "+237670000001", email: "awa@example.com" }

export const wallet = {
  id: "wal_01",
  currency: "XAF",
  balance: 150000,
  pending_balance: 2000,
  reserved_balance: 10000,
  available_balance: 140000,
  last_updated: "2025-03-01T12:00:00Z"
}

export const walletsBody = { wallets: [wallet, { ...wallet, id: "wal_02", currency: "XOF" }] }

export const walletTransaction = {
  id: "txn_01",
  reference: "TXN20250301A1",
  type: "payout",
  amount: 5000,
  fee: 50,
  net_amount: 5050,
  currency: "XAF",
  status: "pending",
  operator: "carrier1_cm",
  customer_name: "Awa Diallo",
  description: "[tok1] March settlement",
  created_at: "2025-03-01T12:00:00Z"
}

export const pagination = {
  total: 1,
  count: 1,
  per_page: 20,
  current_page: 1,
  total_pages: 1,
  links: { next: null }
}

export const transactionsBody = {
  success: true,
  message: "Transactions retrieved",
  data: { transactions: [walletTransaction], pagination }
}

export const summaryBody = {
  success: true,
  message: "Summary retrieved",
  data: {
    total_balance_summary: [
      { currency: "XAF", total_balance: 150000, total_available: 140000, total_pending: 2000, total_reserved: 10000 }
    ],
    transaction_summary: {
      last_30_days: {
        total_payin_count: 3,
        total_payin_amount: 12000,
        total_payout_count: 1,
        total_payout_amount: 5000,
        total_fee_amount: 290
      }
    }
  }
}

export const statusRecord = {
  reference: "TXN20250301A1",
  external_transaction_id: "ext-991",
  amount: 5000,
  currency: "XAF",
  type: "payout",
  operator: "carrier1_cm",
  status: "processing",
  status_description: "Being processed by the provider",
  fee: 50,
  created_at: "2025-03-01T12:00:00Z",
  updated_at: "2025-03-01T12:01:00Z",
  payment_details: { row: "tok1" },
  customer
}

export const statusBody = { success: true, message: "Transaction found", data: statusRecord }

const requestBase = {
  amount: 5000,
  currency: "XAF",
  operator: "carrier1_cm",
  return_url: "https://merchant.example/return",
  cancel_url: "https://merchant.example/cancel",
  callback_url: "https://merchant.example/webhooks",
  description: "[tok1] March settlement",
  customer
}

export const payoutRequest = { ...requestBase, phoneNumber: "+237670000001", payout_details: { row: "tok1" } }
export const mobileMoneyPayinRequest = { ...requestBase, phoneNumber: "+237670000001", payment_details: { order: "A1" } }
export const cardPayinRequest = { ...requestBase, amount: 1999, currency: "USD", operator: "cardnet1", payment_details: { order: "A2" } }

export const payoutBody = {
  reference: "TXN20250301A1",
  amount: 5000,
  currency: "XAF",
  status: "pending",
  operator: "carrier1_cm",
  message: "Payout queued",
  phoneNumber: "+237670000001",
  fee: 50,
  estimated_delivery: "5 minutes"
}

export const mobileMoneyPayinBody = {
  error: false,
  reference: "TXN20250301B2",
  status: "success",
  message: "Confirm the payment on your phone",
  currency: "XAF"
}

export const cardPayinBody = {
  error: false,
  reference: "TXN20250301C3",
  payment_url: "https://pay.example/checkout/C3",
  status: "success",
  error_message: null,
  amount: 1999,
  currency: "USD",
  expires_at: "2025-03-01T12:30:00Z"
}

export const envelopeA = {
  success: false,
  message: "Validation failed",
  errors: { phoneNumber: ["The phone number format is invalid for the operator"] }
}

export const envelopeB = {
  error: true,
  reference: "TXN20250301B2",
  status: "failed",
  error_message: "Insufficient funds"
}

export const webhookBody = { event: "payout.completed", data: statusRecord }
