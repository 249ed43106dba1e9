/**
 * The unkind-but-legal listing and commit faults (list_jitter, commit_delay, pages_lie, desc_mangle,
 * list_order), each observed from a plain HTTP client, deterministic under seed=N.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { seededUnit } from "../../src/sandbox/SeededUnit.ts"
import { parseFaults } from "../../src/sandbox/FaultGrammar.ts"
import { type SandboxState, txnOf } from "../../src/sandbox/State.ts"
import { advance, assertInvariants, type Api, eventually, payout, payoutBody, receiver, sandbox, stateOf, status, wallet, webhooks } from "../kit/Sandbox.ts"

/** Virtual time stands still unless advanced, so visibility edges are exact. */
const FROZEN = 1e-9

const counters = (api: Api) => Effect.map(api.get("/__sandbox/faults"), (r) => r.json.counters as Record<string, number>)
const payouts = (api: Api) => Effect.map(api.get("/__sandbox/payouts"), (r) => r.json.payouts as Array<any>)
const setFaults = (api: Api, faults: string) =>
  Effect.map(api.send("PUT", "/__sandbox/faults", { faults }), (r) => {
    expect(r.status).toBe(200)
    return r.json
  })
const page = (api: Api, query: string) =>
  Effect.map(api.get(`/v1/wallet/transactions?type=payout&${query}`), (r) => {
    expect(r.status).toBe(200)
    return r.json.data as { transactions: Array<any>; pagination: any }
  })
const listed = (api: Api, query = "limit=100") => Effect.map(page(api, query), (d) => d.transactions.map((t: any) => t.reference as string))
const nowOf = (api: Api) => Effect.map(advance(api, 0), (r) => Date.parse(r.json.now))
/** `n` payouts one after the other; their references in creation order. */
const create = (api: Api, n: number, overrides: (i: number) => Record<string, unknown> = () => ({})) =>
  Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
    Effect.map(payout(api, { amount: 1000 + i, ...overrides(i) }), (r) => {
      expect(r.status).toBe(200)
      return r.json.reference as string
    })
  )
const rawPayout = (api: Api, body: Record<string, unknown>, signal?: AbortSignal) =>
  Effect.either(
    api.raw("/v1/payments/payout/mobile-money", {
      method: "POST",
      headers: { ...api.headers, "Content-Type": "application/json" },
      body: JSON.stringify(payoutBody(body)),
      signal
    })
  )
const message = (text: string) => Either.getLeft(parseFaults(text)).pipe((o) => (o._tag === "Some" ? o.value : ""))

describe("parsing the listing and commit faults", () => {
  it("parses each kind; values may hold '=' (split at the first one)", () => {
    const parsed = Either.getOrThrow(
      parseFaults(
        "transactions.list_jitter=8s,transactions.pages_lie=dupref,transactions.desc_mangle=cut=13,transactions.list_order=shuffle,payout.commit_delay=2s-5s,payout.commit_delay_rate=0.25,seed=7"
      )
    )
    expect(parsed.seed).toBe(7)
    expect(parsed.endpoints.transactions).toEqual({
      list_jitter: { min: 0, max: 8000 },
      pages_lie: "dupref",
      desc_mangle: { kind: "cut", length: 13 },
      list_order: "shuffle"
    })
    expect(parsed.endpoints.payout).toEqual({ commit_delay: { min: 2000, max: 5000 }, commit_delay_rate: 0.25 })
    expect(Either.getOrThrow(parseFaults("transactions.list_jitter=2s-8s")).endpoints.transactions).toEqual({ list_jitter: { min: 2000, max: 8000 } })
    expect(Either.getOrThrow(parseFaults("transactions.desc_mangle=strip")).endpoints.transactions).toEqual({ desc_mangle: { kind: "strip" } })
    expect(Either.getOrThrow(parseFaults("transactions.desc_mangle=upper")).endpoints.transactions).toEqual({ desc_mangle: { kind: "upper" } })
    expect(Either.getOrThrow(parseFaults("payout.commit_delay=1s")).endpoints.payout).toEqual({ commit_delay: { min: 1000, max: 1000 } })
    // DESIGN's short form P:D.
    expect(Either.getOrThrow(parseFaults("payout.commit_delay=0.3:2s-4s")).endpoints.payout).toEqual({
      commit_delay: { min: 2000, max: 4000 },
      commit_delay_rate: 0.3
    })
  })

  it("these kinds belong to one endpoint: bare or * goes there, another endpoint is refused", () => {
    const parsed = Either.getOrThrow(parseFaults("list_order=oldest,*.pages_lie=one,commit_delay=1s,*.desc_mangle=upper"))
    expect(parsed.endpoints).toEqual({
      transactions: { list_order: "oldest", pages_lie: "one", desc_mangle: { kind: "upper" } },
      payout: { commit_delay: { min: 1000, max: 1000 } }
    })
    expect(message("payout.list_jitter=1s")).toMatch(/list_jitter applies to the transactions endpoint only/)
    expect(message("status.desc_mangle=upper")).toMatch(/transactions endpoint only/)
    expect(message("transactions.commit_delay=1s")).toMatch(/commit_delay applies to the payout endpoint only/)
  })

  it("refuses unknown values with clear messages", () => {
    expect(message("transactions.pages_lie=two")).toMatch(/"two" is not one of one, emptymid, dupref/)
    expect(message("transactions.list_order=random")).toMatch(/"random" is not one of oldest, newest, shuffle/)
    expect(message("transactions.desc_mangle=cut=0")).toMatch(/cut=N \(N at least 1\), strip, upper/)
    expect(message("transactions.desc_mangle=lower")).toMatch(/not one of cut=N/)
    expect(message("transactions.list_jitter=soon")).toMatch(/not a duration/)
    expect(message("transactions.list_jitter=8s-2s")).toMatch(/ends before it starts/)
    expect(message("payout.commit_delay=1.5:2s")).toMatch(/probability between 0 and 1/)
    expect(message("payout.commit_delay_rate=2")).toMatch(/probability between 0 and 1/)
    expect(message("payout.commit_delay_rate=0.5")).toMatch(/commit_delay_rate needs payout.commit_delay/)
    expect(message("transactions.list_shuffle=1")).toMatch(/unknown fault kind "list_shuffle"/)
  })
})

describe("list_jitter", () => {
  /** The payouts a listing should show now: createdAt + jitter(seed, seq) has passed. */
  const due = (state: SandboxState, refs: ReadonlyArray<string>, seed: number, maxMillis: number, now: number) =>
    refs.filter((ref) => {
      const txn = txnOf(state, ref)!
      return txn.createdAt + Math.round(seededUnit(seed, "list_jitter", txn.seq) * maxMillis) <= now
    })

  /** Advances 0..`until` seconds in steps; the order in which the references first show (creation indexes). */
  const appearance = (api: Api, refs: ReadonlyArray<string>, seed: number, step: number, until: number) =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      for (let t = 0; t <= until; t += step) {
        if (t > 0) yield* advance(api, step)
        const first = yield* listed(api)
        expect(yield* listed(api)).toEqual(first) // repeated listings agree
        expect(new Set(first)).toEqual(new Set(due(yield* stateOf(api), refs, seed, until * 1000, yield* nowOf(api))))
        for (const index of seen) expect(first).toContain(refs[index]) // once shown, always shown
        refs.forEach((ref, index) => {
          if (first.includes(ref) && !seen.includes(index)) seen.push(index)
        })
      }
      return seen
    })

  it.scopedLive("each transaction shows after its own fixed, seeded delay: out-of-order visibility", () =>
    Effect.gen(function* () {
      const faults = "transactions.list_jitter=100s,seed=7"
      const api = yield* sandbox({ faults, timeScale: FROZEN, payoutDelaySeconds: 3600 })
      const refs = yield* create(api, 8)
      // Status lookups are not delayed.
      expect((yield* status(api, refs[7])).status).toBe(200)
      const order = yield* appearance(api, refs, 7, 10, 100)
      expect(order).toHaveLength(8)
      expect(order).not.toEqual([...order].sort((a, b) => a - b))

      // The same seed and the same history give the same order of appearance.
      const again = yield* sandbox({ faults, timeScale: FROZEN, payoutDelaySeconds: 3600 })
      const refs2 = yield* create(again, 8)
      expect(yield* appearance(again, refs2, 7, 10, 100)).toEqual(order)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("a range 60s-120s hides everything for 60s, shows everything after 120s, and adds to list_lag", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "transactions.list_jitter=60s-120s,transactions.list_lag=30s,seed=3", timeScale: FROZEN, payoutDelaySeconds: 3600 })
      const refs = yield* create(api, 5)
      yield* advance(api, 89)
      expect(yield* listed(api)).toEqual([])
      yield* advance(api, 62)
      expect(new Set(yield* listed(api))).toEqual(new Set(refs))
    })
  )
})

describe("commit_delay", () => {
  it.scopedLive("a client that waits gets the normal answer late; created_at is the late commit", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payout.commit_delay=600ms", payoutDelaySeconds: 3600 })
      const before = yield* nowOf(api)
      const started = Date.now()
      const r = yield* payout(api)
      expect(Date.now() - started).toBeGreaterThanOrEqual(580)
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({ status: "pending", message: "Payout initiated successfully" })
      const record = (yield* status(api, r.json.reference)).json.data
      expect(Date.parse(record.created_at) - before).toBeGreaterThanOrEqual(580)
      expect((yield* counters(api))["payout.commit_delay"]).toBe(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("a client that gives up during the hold: the payout is created anyway, reserved, listed and reaches its outcome", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ faults: "payout.commit_delay=700ms", payoutDelaySeconds: 60 })
      const reservedBefore = (yield* wallet(api, "XAF")).reserved_balance
      const started = Date.now()
      const r = yield* rawPayout(api, { amount: 5000, callback_url: hooks.url }, AbortSignal.timeout(150))
      expect(Either.isLeft(r)).toBe(true)
      // Nothing exists yet: the client's reconciliation finds no trace...
      expect(yield* payouts(api)).toEqual([])
      expect(yield* listed(api)).toEqual([])
      yield* assertInvariants(api)
      // ...until the late commit, which goes through although nobody waits for its answer.
      const [created] = yield* eventually(
        Effect.flatMap(payouts(api), (ps) => (ps.length === 1 ? Effect.succeed(ps) : Effect.fail("not yet"))),
        3_000
      )
      expect(Date.now() - started).toBeGreaterThanOrEqual(680)
      expect(created).toMatchObject({ amount: 5000, status: "pending" })
      expect((yield* wallet(api, "XAF")).reserved_balance).toBe(reservedBefore + created.amount + created.fee)
      expect(yield* listed(api)).toEqual([created.reference])
      yield* assertInvariants(api)
      yield* advance(api, 61)
      const [hook] = yield* webhooks(hooks, 1)
      expect(hook.body).toMatchObject({ event: "payout.completed", data: { reference: created.reference } })
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("held commits check the balance when they commit: the second of two that do not both fit is refused", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "payout.commit_delay=300ms", payoutDelaySeconds: 3600 })
      const [a, b] = yield* Effect.all([payout(api, { amount: 600_000 }), payout(api, { amount: 600_000 })], { concurrency: 2 })
      expect([a.status, b.status].sort()).toEqual([200, 422])
      expect([a, b].find((r) => r.status === 422)!.json.errors.amount[0]).toMatch(/Insufficient XAF wallet balance/)
      expect(yield* payouts(api)).toHaveLength(1)
      yield* assertInvariants(api)
    })
  )

  it.scopedLive("commit_delay_rate holds a seeded share of POSTs, the same ones again under the same seed", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payoutDelaySeconds: 3600 })
      const run = Effect.gen(function* () {
        yield* setFaults(api, "payout.commit_delay=250ms,payout.commit_delay_rate=0.5,seed=11")
        const held: Array<boolean> = []
        // Held or not is read from the counter, never from how long a POST took: a loaded machine
        // slows an unheld one past any threshold. A held one cannot be faster than its hold.
        const heldSoFar = Effect.map(counters(api), (c) => c["payout.commit_delay"] ?? 0)
        for (let i = 0; i < 8; i++) {
          const before = yield* heldSoFar
          const started = Date.now()
          expect((yield* payout(api, { amount: 100 })).status).toBe(200)
          const elapsed = Date.now() - started
          const wasHeld = (yield* heldSoFar) > before
          if (wasHeld) expect(elapsed).toBeGreaterThanOrEqual(240)
          held.push(wasHeld)
        }
        return held
      })
      const first = yield* run
      expect(new Set(first)).toEqual(new Set([true, false]))
      expect(yield* run).toEqual(first)
      yield* assertInvariants(api)
    })
  )
})

describe("pages_lie", () => {
  /** 8 payouts, 3 a page: 3 honest pages. */
  const setup = Effect.gen(function* () {
    const api = yield* sandbox({ timeScale: FROZEN, payoutDelaySeconds: 3600 })
    const refs = (yield* create(api, 8)).reverse() // newest first, as listed
    return { api, refs }
  })
  const refsOf = (d: { transactions: Array<any> }) => d.transactions.map((t: any) => t.reference as string)

  it.scopedLive("one: total_pages 1 and no next link on every page, yet later pages still answer and total is true", () =>
    Effect.gen(function* () {
      const { api, refs } = yield* setup
      yield* setFaults(api, "transactions.pages_lie=one")
      const pages = yield* Effect.forEach([1, 2, 3], (p) => page(api, `limit=3&page=${p}`))
      for (const d of pages) {
        expect(d.pagination).toMatchObject({ total: 8, total_pages: 1, per_page: 3 })
        expect(d.pagination.links.next).toBeNull()
      }
      expect(pages.map((d) => d.pagination.count)).toEqual([3, 3, 2])
      expect(pages.flatMap(refsOf)).toEqual(refs)
    })
  )

  it.scopedLive("emptymid: page 2 is empty while pages 3.. still hold the rows; total is true", () =>
    Effect.gen(function* () {
      const { api, refs } = yield* setup
      yield* setFaults(api, "transactions.pages_lie=emptymid")
      const pages = yield* Effect.forEach([1, 2, 3, 4], (p) => page(api, `limit=3&page=${p}`))
      expect(pages.map((d) => d.pagination.count)).toEqual([3, 0, 3, 2])
      expect(pages[1].transactions).toEqual([])
      for (const d of pages) expect(d.pagination.total).toBe(8)
      expect(pages[0].pagination.links.next).toMatch(/page=2/)
      expect(pages[1].pagination.links.next).toMatch(/page=3/)
      // A reader that stops at the first empty page sees 3 of 8; one that follows the links sees all.
      expect(pages.flatMap(refsOf)).toEqual(refs)
    })
  )

  it.scopedLive("dupref: each page from 2 repeats the previous page's last row, so reading to total_pages misses the tail", () =>
    Effect.gen(function* () {
      const { api, refs } = yield* setup
      yield* setFaults(api, "transactions.pages_lie=dupref")
      const first = yield* page(api, "limit=3&page=1")
      expect(first.pagination).toMatchObject({ total: 8, total_pages: 3 })
      const pages = [first, ...(yield* Effect.forEach([2, 3], (p) => page(api, `limit=3&page=${p}`)))]
      expect(pages[2].pagination.links.next).toBeNull()
      for (let p = 1; p < pages.length; p++) expect(refsOf(pages[p])[0]).toBe(refsOf(pages[p - 1]).at(-1))
      const read = pages.flatMap(refsOf)
      expect(read).toHaveLength(9)
      const distinct = new Set(read)
      expect(distinct.size).toBe(7)
      expect(distinct.has(refs[7])).toBe(false)
      // The tail is still there beyond the reported last page.
      expect(refsOf(yield* page(api, "limit=3&page=4"))).toEqual([refs[6], refs[7]])
    })
  )
})

describe("desc_mangle", () => {
  it.scopedLive("cut=N, strip and upper change what the listing shows, and only the listing", () =>
    Effect.gen(function* () {
      const description = "[ab12cd] Seller settlement March"
      const api = yield* sandbox({ payoutDelaySeconds: 3600 })
      const [ref] = yield* create(api, 1, () => ({ description }))
      const shown = Effect.map(page(api, "limit=100"), (d) => d.transactions[0].description as string)
      yield* setFaults(api, "transactions.desc_mangle=cut=13")
      expect(yield* shown).toBe("[ab12cd] Sell")
      yield* setFaults(api, "transactions.desc_mangle=strip")
      expect(yield* shown).toBe("Seller settlement March")
      yield* setFaults(api, "transactions.desc_mangle=upper")
      expect(yield* shown).toBe("[AB12CD] SELLER SETTLEMENT MARCH")
      expect((yield* payouts(api))[0].description).toBe(description)
      expect((yield* status(api, ref)).status).toBe(200)
      yield* setFaults(api, "")
      expect(yield* shown).toBe(description)
    })
  )

  it.scopedLive("strip leaves a description without a [...] prefix alone", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ faults: "transactions.desc_mangle=strip", payoutDelaySeconds: 3600 })
      yield* create(api, 1, () => ({ description: "Seller [x] settlement" }))
      expect((yield* page(api, "limit=100")).transactions[0].description).toBe("Seller [x] settlement")
    })
  )
})

describe("list_order", () => {
  it.scopedLive("oldest, newest and a seeded shuffle that is stable for the same rows and across pages", () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ timeScale: FROZEN, payoutDelaySeconds: 3600 })
      const refs = yield* create(api, 8)
      const newest = [...refs].reverse()
      expect(yield* listed(api)).toEqual(newest)
      yield* setFaults(api, "transactions.list_order=oldest")
      expect(yield* listed(api)).toEqual(refs)
      yield* setFaults(api, "transactions.list_order=newest")
      expect(yield* listed(api)).toEqual(newest)
      yield* setFaults(api, "transactions.list_order=shuffle,seed=5")
      const shuffled = yield* listed(api)
      expect(new Set(shuffled)).toEqual(new Set(refs))
      expect(shuffled).not.toEqual(refs)
      expect(shuffled).not.toEqual(newest)
      expect(yield* listed(api)).toEqual(shuffled)
      const paged = yield* Effect.forEach([1, 2, 3], (p) => listed(api, `limit=3&page=${p}`))
      expect(paged.flat()).toEqual(shuffled)
      // The permutation comes from the seed: another sandbox with the same history agrees.
      const other = yield* sandbox({ faults: "transactions.list_order=shuffle,seed=5", timeScale: FROZEN, payoutDelaySeconds: 3600 })
      const otherRefs = yield* create(other, 8)
      expect((yield* listed(other)).map((r) => otherRefs.indexOf(r))).toEqual(shuffled.map((r) => refs.indexOf(r)))
    })
  )
})
