import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck, Schema } from "effect"
import * as S from "../../src/api/Schemas.ts"
import * as F from "./support/fixtures.ts"

/** Field names of each table of payment-api-v1.md, as written there. */
const specTables = {
  Wallet: ["id", "currency", "balance", "pending_balance", "reserved_balance", "available_balance", "last_updated"],
  WalletTransaction: [
    "id", "reference", "type", "amount", "fee", "net_amount", "currency", "status", "operator", "customer_name",
    "description", "created_at"
  ],
  Pagination: ["total", "count", "per_page", "current_page", "total_pages", "links"],
  StatusRecord: [
    "reference", "external_transaction_id", "amount", "currency", "type", "operator", "status",
    "status_description", "fee", "created_at", "updated_at", "payment_details", "customer"
  ],
  WalletSummary: ["total_balance_summary", "transaction_summary"],
  BalanceSummary: ["currency", "total_balance", "total_available", "total_pending", "total_reserved"],
  Last30Days: ["total_payin_count", "total_payin_amount", "total_payout_count", "total_payout_amount", "total_fee_amount"],
  Customer: ["name", "phone", "email"],
  MobileMoneyPayinRequest: [
    "amount", "currency", "phoneNumber", "operator", "return_url", "cancel_url", "callback_url", "description",
    "payment_details", "customer"
  ],
  CardPayinRequest: [
    "amount", "currency", "operator", "return_url", "cancel_url", "callback_url", "description", "payment_details",
    "customer"
  ],
  PayoutRequest: [
    "amount", "currency", "phoneNumber", "operator", "return_url", "cancel_url", "callback_url", "description",
    "payout_details", "customer"
  ],
  WalletsResponse: ["wallets"],
  TransactionsResponse: ["success", "message", "data"],
  SummaryResponse: ["success", "message", "data"],
  StatusResponse: ["success", "message", "data"],
  PayoutResponse: [
    "reference", "amount", "currency", "status", "operator", "message", "phoneNumber", "fee", "estimated_delivery"
  ],
  MobileMoneyPayinResponse: ["error", "reference", "status", "message", "currency"],
  CardPayinResponse: [
    "error", "reference", "payment_url", "status", "error_message", "amount", "currency", "expires_at"
  ],
  EnvelopeA: ["success", "message", "errors"],
  EnvelopeB: ["error", "reference", "status", "error_message"],
  WebhookEvent: ["event", "data"]
} as const

interface Case {
  readonly schema: Schema.Schema<any, any> & { readonly fields: Record<string, unknown> }
  readonly sample: unknown
}

const cases: Record<keyof typeof specTables, Case> = {
  Wallet: { schema: S.Wallet, sample: F.wallet },
  WalletTransaction: { schema: S.WalletTransaction, sample: F.walletTransaction },
  Pagination: { schema: S.Pagination, sample: F.pagination },
  StatusRecord: { schema: S.StatusRecord, sample: F.statusRecord },
  WalletSummary: { schema: S.WalletSummary, sample: F.summaryBody.data },
  BalanceSummary: { schema: S.BalanceSummary, sample: F.summaryBody.data.total_balance_summary[0] },
  Last30Days: { schema: S.Last30Days, sample: F.summaryBody.data.transaction_summary.last_30_days },
  Customer: { schema: S.Customer, sample: F.customer },
  MobileMoneyPayinRequest: { schema: S.MobileMoneyPayinRequest, sample: F.mobileMoneyPayinRequest },
  CardPayinRequest: { schema: S.CardPayinRequest, sample: F.cardPayinRequest },
  PayoutRequest: { schema: S.PayoutRequest, sample: F.payoutRequest },
  WalletsResponse: { schema: S.WalletsResponse, sample: F.walletsBody },
  TransactionsResponse: { schema: S.TransactionsResponse, sample: F.transactionsBody },
  SummaryResponse: { schema: S.SummaryResponse, sample: F.summaryBody },
  StatusResponse: { schema: S.StatusResponse, sample: F.statusBody },
  PayoutResponse: { schema: S.PayoutResponse, sample: F.payoutBody },
  MobileMoneyPayinResponse: { schema: S.MobileMoneyPayinResponse, sample: F.mobileMoneyPayinBody },
  CardPayinResponse: { schema: S.CardPayinResponse, sample: F.cardPayinBody },
  EnvelopeA: { schema: S.EnvelopeA, sample: F.envelopeA },
  EnvelopeB: { schema: S.EnvelopeB, sample: F.envelopeB },
  WebhookEvent: { schema: S.WebhookEvent, sample: F.webhookBody }
}

describe("Schemas", () => {
  for (const [name, { sample, schema }] of Object.entries(cases)) {
    describe(name, () => {
      it("declares every field of the spec table", () => {
        const fields = Object.keys(schema.fields)
        for (const field of specTables[name as keyof typeof specTables]) expect(fields).toContain(field)
      })

      it("decodes a spec-faithful sample and encodes it back", () => {
        const decoded = Schema.decodeUnknownSync(schema)(JSON.parse(JSON.stringify(sample)))
        const encoded = Schema.encodeSync(schema)(decoded)
        expect(Schema.decodeUnknownSync(schema)(encoded)).toEqual(decoded)
        expect(JSON.parse(JSON.stringify(encoded))).toMatchObject(JSON.parse(JSON.stringify(sample)))
      })

      it("round-trips generated values: decode(encode(x)) = x", () => {
        const arbitrary = Arbitrary.make(schema)
        FastCheck.assert(
          FastCheck.property(arbitrary, (x) => {
            expect(Schema.decodeSync(schema)(Schema.encodeSync(schema)(x))).toEqual(x)
          }),
          { numRuns: 30 }
        )
      })
    })
  }

  it("tolerates numbers sent as strings and absent optional fields", () => {
    const wallet = Schema.decodeUnknownSync(S.Wallet)({ ...F.wallet, balance: "150000.50" })
    expect(wallet.balance).toBe(150000.5)
    const payout = Schema.decodeUnknownSync(S.PayoutResponse)({ reference: "TXN1", status: "pending" })
    expect(payout.fee).toBeUndefined()
    const card = Schema.decodeUnknownSync(S.CardPayinResponse)({
      error: false,
      reference: "TXN2",
      payment_url: "https://pay.example/x",
      status: "success"
    })
    expect(card.expires_at).toBeUndefined()
  })

  it("keeps the two error envelopes apart from success shapes", () => {
    expect(Schema.is(S.EnvelopeA)(Schema.decodeUnknownSync(S.EnvelopeA)(F.envelopeA))).toBe(true)
    expect(() => Schema.decodeUnknownSync(S.EnvelopeA)(F.transactionsBody)).toThrow()
    expect(() => Schema.decodeUnknownSync(S.MobileMoneyPayinResponse)(F.envelopeB)).toThrow()
    expect(() => Schema.decodeUnknownSync(S.EnvelopeB)(F.mobileMoneyPayinBody)).toThrow()
  })
})
