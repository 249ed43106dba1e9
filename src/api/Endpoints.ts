/**
 * The v1 interface as one table: each endpoint's method, path (relative to the base URL, which ends
 * in /v1), parameters, request body and the schemas of its two answers. The OpenAPI description is
 * generated from it (OpenApi.ts), and a sandbox test checks it against the routes the sandbox serves.
 */
import { Schema } from "effect"
import {
  CardPayinRequest,
  CardPayinResponse,
  EnvelopeA,
  EnvelopeB,
  MobileMoneyPayinRequest,
  MobileMoneyPayinResponse,
  PayoutRequest,
  PayoutResponse,
  StatusResponse,
  SummaryResponse,
  TransactionStatus,
  TransactionsResponse,
  TransactionType,
  WalletsResponse
} from "./Schemas.ts"

export interface Parameter {
  readonly name: string
  readonly in: "query" | "path"
  readonly required: boolean
  readonly description: string
  readonly schema: Schema.Schema.Any
}

export interface Endpoint {
  readonly operationId: string
  readonly method: "get" | "post"
  readonly path: string
  readonly summary: string
  readonly description: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly body?: Schema.Schema.Any
  readonly success: Schema.Schema.Any
  /** Envelope A for wallet, transactions, status and payout; envelope B for both pay-ins. */
  readonly failure: typeof EnvelopeA | typeof EnvelopeB
}

const PageNumber = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ default: 1 })
const PageSize = Schema.Int.pipe(Schema.between(1, 100)).annotations({ default: 20 })
const Day = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/)).annotations({ format: "date" })

const query = (name: string, description: string, schema: Schema.Schema.Any = Schema.String): Parameter => ({
  name,
  in: "query",
  required: false,
  description,
  schema
})

export const V1_ENDPOINTS: ReadonlyArray<Endpoint> = [
  {
    operationId: "getWallets",
    method: "get",
    path: "/wallet",
    summary: "Balances of all wallets",
    description: "One wallet per currency. available_balance is balance minus reserved_balance; pending_balance is not part of balance.",
    parameters: [],
    success: WalletsResponse,
    failure: EnvelopeA
  },
  {
    operationId: "listTransactions",
    method: "get",
    path: "/wallet/transactions",
    summary: "Transaction history, filtered and paginated",
    description: "The past 90 days only. pagination.links.next is the absolute URL of the next page, carrying page, limit and the active filters.",
    parameters: [
      query("wallet_id", "Filter by wallet."),
      query("currency", "Filter by currency code."),
      query("type", "Filter by type.", TransactionType),
      query("status", "Filter by transaction status.", TransactionStatus),
      query("from_date", "Start date, YYYY-MM-DD (another form is refused with errors.from_date).", Day),
      query("to_date", "End date, YYYY-MM-DD (another form is refused with errors.to_date).", Day),
      query("page", "Page number.", PageNumber),
      query("limit", "Records per page, at most 100.", PageSize)
    ],
    success: TransactionsResponse,
    failure: EnvelopeA
  },
  {
    operationId: "getWalletSummary",
    method: "get",
    path: "/wallet/summary",
    summary: "Cross-currency totals and 30-day activity",
    description: "Balance totals per currency and counts and sums of the last 30 days.",
    parameters: [],
    success: SummaryResponse,
    failure: EnvelopeA
  },
  {
    operationId: "getTransactionStatus",
    method: "get",
    path: "/payment/status/{reference}",
    summary: "Status of a pay-in or payout",
    description: "History is kept 90 days. An unknown reference is refused with errors.reference. Subject to the same rate limits as other endpoints.",
    parameters: [{ name: "reference", in: "path", required: true, description: "Reference returned when the transaction was created.", schema: Schema.String }],
    success: StatusResponse,
    failure: EnvelopeA
  },
  {
    operationId: "createMobileMoneyPayin",
    method: "post",
    path: "/payments/payin/mobile-money",
    summary: "Ask a customer to pay from their mobile money account",
    description: "The customer confirms on their phone; a request not completed within 15 minutes expires. The outcome is sent to callback_url. The status of an accepted request reads success.",
    parameters: [],
    body: MobileMoneyPayinRequest,
    success: MobileMoneyPayinResponse,
    failure: EnvelopeB
  },
  {
    operationId: "createCardPayin",
    method: "post",
    path: "/payments/payin/card",
    summary: "Start a card payment and get its checkout page",
    description: "amount is in the smallest unit of the currency. Redirect the customer to payment_url; the page expires after 30 minutes. A refusal's status may still read success: error tells.",
    parameters: [],
    body: CardPayinRequest,
    success: CardPayinResponse,
    failure: EnvelopeB
  },
  {
    operationId: "createMobileMoneyPayout",
    method: "post",
    path: "/payments/payout/mobile-money",
    summary: "Send money from the wallet to a mobile money account",
    description:
      "Reserves amount + fee; the fee is taken from the wallet, not from the amount. A low balance is refused with errors.amount, a number invalid for the operator with errors.phoneNumber. There is no idempotency key: after a timeout, a dropped connection or a 5xx the payout may exist, so look for it (its description) before sending again.",
    parameters: [],
    body: PayoutRequest,
    success: PayoutResponse,
    failure: EnvelopeA
  }
]
