import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { advance, assertInvariants, payout, sandbox, status } from "../kit/Sandbox.ts"

const SLOW = { payoutDelaySeconds: 60 }
const list = (api: { get: (p: string) => Effect.Effect<any> }, query = "") => api.get(`/v1/wallet/transactions${query}`)
const today = (api: { get: (p: string) => Effect.Effect<any> }) =>
  Effect.map(api.get("/__sandbox/clock"), (r) => (r.json.now as string).slice(0, 10))

describe("GET /v1/wallet", () => {
  it.scopedLive("one wallet per currency with the spec's fields; funding is an adjustment", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ fund: { XAF: 5_000_000, NGN: 1234.5 } })
      const r = yield* api.get("/v1/wallet")
      expect(r.status).toBe(200)
      expect(r.json.success).toBeUndefined()
      const byCurrency = Object.fromEntries(r.json.wallets.map((w: any) => [w.currency, w]))
      expect(Object.keys(byCurrency).sort()).toEqual(["GHS", "NGN", "XAF", "XOF"])
      expect(byCurrency.XAF).toMatchObject({ balance: 5_000_000, pending_balance: 0, reserved_balance: 0, available_balance: 5_000_000 })
      expect(byCurrency.XAF.id).toMatch(/^wal_/)
      expect(Number.isNaN(Date.parse(byCurrency.XAF.last_updated))).toBe(false)
      expect(byCurrency.NGN.balance).toBe(1234.5)
      const funded = yield* api.send("POST", "/__sandbox/fund", { currency: "XOF", amount: 700 })
      expect(funded.status).toBe(200)
      expect(funded.json.wallet).toMatchObject({ currency: "XOF", balance: 700 })
      expect((yield* api.send("POST", "/__sandbox/fund", { currency: "XOF", amount: 1.5 })).json.errors.amount).toBeDefined()
      expect((yield* api.send("POST", "/__sandbox/fund", { currency: "ZZZ", amount: 1 })).json.errors.currency).toBeDefined()
      const adjustments = (yield* list(api, "?type=adjustment")).json.data.transactions
      expect(adjustments.map((t: any) => [t.currency, t.amount, t.status])).toEqual([
        ["XOF", 700, "completed"],
        ["NGN", 1234.5, "completed"],
        ["XAF", 5_000_000, "completed"]
      ])
      yield* assertInvariants(api)
    })
  )
})

describe("GET /v1/wallet/transactions", () => {
  it.scopedLive("pages newest first, links.next carries page, limit and filters, null on the last page", () =>
    Effect.gen(function* () {
      const api = yield* sandbox(SLOW)
      const refs: Array<string> = []
      for (let i = 0; i < 25; i++) refs.push((yield* payout(api, { amount: 1_000 + i, description: `row ${i}` })).json.reference)
      yield* payout(api, { currency: "XOF", operator: "carrier2_sn", phoneNumber: "+221770000001" })
      const first = yield* list(api)
      expect(first.status).toBe(200)
      expect(first.json.success).toBe(true)
      expect(first.json.data.pagination).toMatchObject({ total: 28, count: 20, per_page: 20, current_page: 1, total_pages: 2 })
      const seen: Array<string> = []
      let next: string | null = `${api.baseUrl}/wallet/transactions?type=payout&currency=XAF&limit=10`
      let pages = 0
      while (next !== null) {
        const url: string = next
        expect(url.startsWith(api.origin)).toBe(true)
        const r = yield* api.get(url.slice(api.origin.length))
        const p = r.json.data.pagination
        pages += 1
        expect(p).toMatchObject({ total: 25, per_page: 10, current_page: pages, total_pages: 3 })
        seen.push(...r.json.data.transactions.map((t: any) => t.reference))
        next = p.links.next
        if (next !== null) {
          const q = new URL(next).searchParams
          expect(Object.fromEntries(q)).toEqual({ type: "payout", currency: "XAF", page: String(pages + 1), limit: "10" })
        }
      }
      expect(pages).toBe(3)
      expect(seen).toEqual([...refs].reverse())
      const row = (yield* list(api, "?type=payout&currency=XAF&limit=1")).json.data.transactions[0]
      expect(row).toMatchObject({ type: "payout", amount: 1_024, fee: 50, net_amount: 1_074, currency: "XAF", status: "pending", operator: "carrier1_cm", customer_name: "Awa Diallo", description: "row 24" })
      expect(row.id).toMatch(/^txn_/)
      const beyond = yield* list(api, "?page=9")
      expect(beyond.json.data.transactions).toEqual([])
      expect(beyond.json.data.pagination.links.next).toBeNull()
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("filters by wallet_id, currency, type, status and dates", () =>
    Effect.gen(function* () {
      const api = yield* sandbox(SLOW)
      const failing = (yield* payout(api, { phoneNumber: "+237670000002" })).json.reference
      yield* payout(api)
      yield* advance(api, 60)
      const failed = (yield* list(api, "?status=failed")).json.data.transactions
      expect(failed.map((t: any) => t.reference)).toEqual([failing])
      expect(failed[0]).toMatchObject({ fee: 0, net_amount: 1_000 })
      const wallets = (yield* api.get("/v1/wallet")).json.wallets
      const xof = wallets.find((w: any) => w.currency === "XOF")
      expect((yield* list(api, `?wallet_id=${xof.id}`)).json.data.transactions.map((t: any) => t.currency)).toEqual(["XOF"])
      expect((yield* list(api, "?currency=xaf")).json.data.pagination.total).toBe(3)
      const day = yield* today(api)
      expect((yield* list(api, `?from_date=${day}&to_date=${day}`)).json.data.pagination.total).toBe(4)
      yield* advance(api, 2 * 86_400)
      const later = (yield* payout(api)).json.reference
      const newDay = yield* today(api)
      expect((yield* list(api, `?from_date=${newDay}`)).json.data.transactions.map((t: any) => t.reference)).toEqual([later])
      expect((yield* list(api, `?to_date=${day}`)).json.data.pagination.total).toBe(4)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("refuses malformed dates keyed by parameter, limit over 100, bad page, type and status", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const cases: Array<[string, string]> = [
        ["?from_date=2024-13-01", "from_date"],
        ["?from_date=01/02/2024", "from_date"],
        ["?to_date=20240101", "to_date"],
        ["?to_date=2024-02-30", "to_date"],
        ["?from_date=2024-03-02&to_date=2024-03-01", "to_date"],
        ["?limit=101", "limit"],
        ["?limit=0", "limit"],
        ["?page=abc", "page"],
        ["?page=0", "page"],
        ["?type=refund", "type"],
        ["?status=done", "status"]
      ]
      for (const [query, key] of cases) {
        const r = yield* list(api, query)
        expect(r.status, query).toBe(422)
        expect(r.json.success).toBe(false)
        expect(Object.keys(r.json.errors), query).toEqual([key])
      }
      expect((yield* list(api, "?from_date=2024-13-01")).json.errors.from_date[0]).toMatch(/YYYY-MM-DD/)
      expect((yield* list(api, "?limit=100")).status).toBe(200)
    })
  )

  it.scopedLive("only the last 90 days are listed or looked up", () =>
    Effect.gen(function* () {
      const api = yield* sandbox(SLOW)
      const old = (yield* payout(api)).json.reference
      yield* advance(api, 89 * 86_400)
      expect((yield* list(api, "?type=payout")).json.data.pagination.total).toBe(1)
      expect((yield* status(api, old)).status).toBe(200)
      yield* advance(api, 2 * 86_400)
      const fresh = (yield* payout(api)).json.reference
      expect((yield* list(api, "?type=payout")).json.data.transactions.map((t: any) => t.reference)).toEqual([fresh])
      expect((yield* list(api, "?type=adjustment")).json.data.pagination.total).toBe(0)
      expect((yield* status(api, old)).status).toBe(404)
      const all = (yield* api.get("/__sandbox/payouts")).json.payouts.map((p: any) => p.reference)
      expect(all).toEqual([old, fresh])
      yield* assertInvariants(api)
    })
  )
})

describe("GET /v1/wallet/summary and GET /v1/payment/status", () => {
  it.scopedLive("summary: per-currency totals and 30-day counts of completed payouts", () =>
    Effect.gen(function* () {
      const api = yield* sandbox(SLOW)
      yield* payout(api, { amount: 10_000 })
      yield* payout(api, { amount: 20_000, phoneNumber: "+237670000002" })
      yield* advance(api, 60)
      yield* payout(api, { amount: 5_000 })
      const r = yield* api.get("/v1/wallet/summary")
      expect(r.status).toBe(200)
      expect(r.json.success).toBe(true)
      const xaf = r.json.data.total_balance_summary.find((s: any) => s.currency === "XAF")
      expect(xaf).toEqual({ currency: "XAF", total_balance: 989_900, total_available: 984_850, total_pending: 0, total_reserved: 5_050 })
      expect(r.json.data.transaction_summary.last_30_days).toEqual({
        total_payin_count: 0,
        total_payin_amount: 0,
        total_payout_count: 1,
        total_payout_amount: 10_000,
        total_fee_amount: 100
      })
      yield* advance(api, 31 * 86_400)
      expect((yield* api.get("/v1/wallet/summary")).json.data.transaction_summary.last_30_days.total_payout_count).toBe(0)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("status of an unknown reference: 404 envelope A", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const r = yield* status(api, "TXNUNKNOWN1")
      expect(r.status).toBe(404)
      expect(r.json).toEqual({ success: false, message: "Transaction not found", errors: { reference: ["No transaction exists with reference TXNUNKNOWN1"] } })
    })
  )
})
