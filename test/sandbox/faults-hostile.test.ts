/**
 * The hostile-answer faults (fee_absurd, fee_negative, foreign_ref, total_lie, huge_body): parsed and
 * refused like every other kind, each observed from a plain HTTP client, the money invariant intact;
 * and a huge body read by the real client over each transport stops at its cap.
 */
import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { PaymentClient } from "../../src/api/Client.ts"
import { parseFaults } from "../../src/sandbox/FaultGrammar.ts"
import { type Api, assertInvariants, counters, payout, sandbox, status } from "../kit/Sandbox.ts"

const message = (text: string) => Either.getLeft(parseFaults(text)).pipe((o) => (o._tag === "Some" ? o.value : ""))
const setFaults = (api: Api, faults: string) => Effect.map(api.send("PUT", "/__sandbox/faults", { faults }), (r) => expect(r.status).toBe(200))
const rawStatus = (api: Api, reference: string) =>
  Effect.promise(async () => (await fetch(`${api.baseUrl}/payment/status/${reference}`, { headers: api.headers })).text())

describe("parsing the hostile-answer faults", () => {
  it("parses each kind to its endpoint; a bare status or listing kind goes to its own", () => {
    const parsed = Either.getOrThrow(
      parseFaults("fee_absurd=0.5,status.fee_negative=1,foreign_ref=0.25,total_lie=5000,wallet.huge_body=256k,status.huge_body=300000,huge_body=2m,seed=4")
    )
    expect(parsed.endpoints.status).toEqual({ fee_absurd: 0.5, fee_negative: 1, foreign_ref: 0.25, huge_body: 300_000 })
    expect(parsed.endpoints.transactions).toEqual({ total_lie: 5000 })
    expect(parsed.endpoints.wallet).toEqual({ huge_body: 256 * 1024 })
    expect(parsed.endpoints["*"]).toEqual({ huge_body: 2 * 1024 * 1024 })
  })

  it("refuses a kind on another endpoint and a value of the wrong form, naming the item", () => {
    expect(message("payout.fee_absurd=1")).toBe(`invalid --faults: "payout.fee_absurd=1": fee_absurd applies to the status endpoint only; write status.fee_absurd=...`)
    expect(message("status.total_lie=10")).toContain("total_lie applies to the transactions endpoint only")
    expect(message("status.foreign_ref=2")).toBe(`invalid --faults: "status.foreign_ref=2": "2" is not a probability between 0 and 1`)
    expect(message("transactions.total_lie=0")).toBe(`invalid --faults: "transactions.total_lie=0": "0" is not a whole number of at least 1`)
    expect(message("wallet.huge_body=lots")).toBe(`invalid --faults: "wallet.huge_body=lots": "lots" is not a size in bytes (write e.g. 300000, 256k, 200m)`)
    expect(message("wallet.huge_body=0")).toContain("is not a size in bytes")
  })
})

describe("the hostile answers, seen from a plain HTTP client", () => {
  it.scopedLive("fee_absurd answers 1e300, fee_negative a negative fee, foreign_ref another reference at 1000x, completed; the state is untouched", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ timeScale: 1, faults: "status.fee_absurd=1,seed=5" })
      const made = yield* payout(api, { amount: 5000 })
      const reference = made.json.reference as string
      expect(yield* rawStatus(api, reference)).toContain(`"fee":1e+300`)
      yield* setFaults(api, "status.fee_negative=1")
      expect((yield* status(api, reference)).json.data.fee).toBe(-50)
      yield* setFaults(api, "status.foreign_ref=1")
      const foreign = (yield* status(api, reference)).json.data
      expect(foreign.reference).not.toBe(reference)
      expect(foreign.amount).toBe(5_000_000)
      expect(foreign.status).toBe("completed")
      expect((yield* counters(api))["status.foreign_ref"]).toBe(1)
      // Only the answer lies: the admin view and the money invariant see the truth.
      yield* setFaults(api, "")
      const truth = (yield* status(api, reference)).json.data
      expect(truth).toMatchObject({ reference, amount: 5000, fee: 50 })
      yield* assertInvariants(api)
    }))

  it.scopedLive("share P of payouts lies, fixed per payout by the seed: each lookup of one payout agrees", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ timeScale: 1, faults: "status.fee_absurd=0.5,seed=9" })
      const references = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
        Effect.map(payout(api, { amount: 2000 + i }), (r) => r.json.reference as string))
      const first = yield* Effect.forEach(references, (r) => Effect.map(status(api, r), (s) => s.json.data.fee === 1e300))
      const again = yield* Effect.forEach(references, (r) => Effect.map(status(api, r), (s) => s.json.data.fee === 1e300))
      expect(again).toEqual(first)
      expect(first.filter(Boolean).length).toBeGreaterThan(0)
      expect(first.filter(Boolean).length).toBeLessThan(12)
    }))

  it.scopedLive("total_lie claims its total and the pages it needs, with a next link; the rows listed are the true ones", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ timeScale: 1, faults: "transactions.total_lie=5000" })
      yield* payout(api, { amount: 5000 })
      const page = (yield* api.get("/v1/wallet/transactions?type=payout&limit=100")).json.data
      expect(page.transactions.length).toBe(1)
      expect(page.pagination).toMatchObject({ total: 5000, total_pages: 50, count: 1, current_page: 1 })
      expect(page.pagination.links.next).toContain("page=2")
      const later = (yield* api.get("/v1/wallet/transactions?type=payout&limit=100&page=50")).json.data
      expect(later.transactions).toEqual([])
      expect(later.pagination.links.next).toBeNull()
      yield* assertInvariants(api)
    }))
})

const TRANSPORTS = [
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici],
  ["FetchHttpClient", FetchHttpClient.layer]
] as const

describe.each(TRANSPORTS)("huge_body read by the client over %s", (_, transport) => {
  it.scopedLive("a 200 MiB GET /wallet is refused at 256 KiB, the connection dropped: the sandbox wrote a small part", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ timeScale: 1, faults: "wallet.huge_body=200m" })
      const layer = PaymentClient.layer({ baseUrl: api.baseUrl, apiKey: api.headers["X-API-Key"], apiSecret: api.headers["X-API-Secret"], requestTimeout: "20 seconds" }, transport)
      const error = yield* Effect.flip(Effect.flatMap(PaymentClient, (client) => client.wallets()).pipe(Effect.provide(layer)))
      expect(error._tag).toBe("UnexpectedResponse")
      expect(error.message).toBe("unexpected response (HTTP 200): answer longer than 256 KiB: not read")
      const sent = (yield* counters(api))["wallet.huge_body_bytes"] ?? 0
      expect(sent).toBeGreaterThan(256 * 1024)
      expect(sent).toBeLessThan(40 * 1024 * 1024)
    }), { timeout: 60_000 })
})
