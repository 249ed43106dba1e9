/** dataFile: the sandbox's state and clock survive a restart on the same SQLite file. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { advance, assertInvariants, type Api, cardPayin, payin, payout, sandbox, status, statusIs, submitCheckout } from "../kit/Sandbox.ts"
import { scopedTempDir } from "../kit/TempDir.ts"

const tempFile = scopedTempDir("sandbox-data-").pipe(Effect.map((dir) => Path.join(dir, "sandbox.db")))

/** Runs `use` against a sandbox on `file`, then closes its scope (stops it). */
const session = <A, E>(file: string, use: (api: Api) => Effect.Effect<A, E>, options = {}) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const api = yield* Scope.extend(sandbox({ dataFile: file, payinDelaySeconds: 0, ...options }), scope)
    const result = yield* use(api)
    yield* Scope.close(scope, Exit.void)
    return result
  })

const clockOf = (api: Api) => Effect.map(api.get("/__sandbox/clock"), (r) => Date.parse(r.json.now))
const snapshot = (api: Api) =>
  Effect.all({
    wallets: Effect.map(api.get("/v1/wallet"), (r) => r.json.wallets),
    history: Effect.map(api.get("/v1/wallet/transactions?limit=100"), (r) => r.json.data.transactions),
    journal: Effect.map(api.get("/__sandbox/journal"), (r) => r.json.entries)
  })

describe("persistence (dataFile)", () => {
  it.scopedLive("wallets, history, statuses, the journal and the clock come back; in-flight payouts complete after restart", () =>
    Effect.gen(function* () {
      const file = yield* tempFile
      const before = yield* session(file, (api) =>
        Effect.gen(function* () {
          const done = yield* payout(api, { amount: 5_000 })
          yield* advance(api, 3 * 24 * 3600)
          const inFlight = yield* payout(api, { amount: 7_000, phoneNumber: "+237670000003" })
          const p = yield* payin(api)
          yield* statusIs(api, p.json.reference, "completed")
          const card = yield* cardPayin(api)
          yield* submitCheckout(card.json.payment_url, { number: "4242424242424242", expiry: "12/39", cvv: "123", action: "pay" })
          const refs = { done: done.json.reference, inFlight: inFlight.json.reference, payin: p.json.reference, card: card.json.reference }
          return { refs, clock: yield* clockOf(api), state: yield* snapshot(api) }
        })
      )
      expect(Fs.existsSync(file)).toBe(true)

      yield* session(
        file,
        (api) =>
          Effect.gen(function* () {
            const clock = yield* clockOf(api)
            expect(clock).toBeGreaterThanOrEqual(before.clock)
            expect(clock - before.clock).toBeLessThan(60_000)
            const after = yield* snapshot(api)
            expect(after.history).toEqual(before.state.history)
            expect(after.journal).toEqual(before.state.journal)
            expect(after.wallets.map((w: any) => ({ ...w, last_updated: 0 }))).toEqual(
              before.state.wallets.map((w: any) => ({ ...w, last_updated: 0 }))
            )
            expect((yield* status(api, before.refs.done)).json.data.status).toBe("completed")
            expect((yield* status(api, before.refs.card)).json.data.status).toBe("completed")
            expect((yield* status(api, before.refs.inFlight)).json.data.status).toBe("pending")
            yield* assertInvariants(api)
            yield* advance(api, 31 * 60)
            yield* statusIs(api, before.refs.inFlight, "completed")
            const fresh = yield* payout(api, { amount: 1_000 })
            expect(fresh.json.reference).not.toBe(before.refs.done)
            yield* assertInvariants(api)
          }),
        { fund: { XAF: 999 } }
      )

      yield* session(file, (api) =>
        Effect.gen(function* () {
          expect((yield* status(api, before.refs.inFlight)).json.data.status).toBe("completed")
          const xaf = (yield* snapshot(api)).wallets.find((w: any) => w.currency === "XAF")
          expect(xaf.balance).toBe(1_000_000 - 5_050 - 7_070)
          yield* assertInvariants(api)
        })
      )
    })
  )

  it.scopedLive("an open checkout and unsettled pay-in funds survive a restart, then pay and settle", () =>
    Effect.gen(function* () {
      const file = yield* tempFile
      const refs = yield* session(file, (api) =>
        Effect.gen(function* () {
          const p = yield* payin(api)
          yield* statusIs(api, p.json.reference, "completed")
          return { card: (yield* cardPayin(api)).json.payment_url as string }
        })
      )
      yield* session(file, (api) =>
        Effect.gen(function* () {
          const paid = yield* submitCheckout(refs.card.replace(/^http:\/\/[^/]+/, api.origin), { number: "4242424242424242", expiry: "12/39", cvv: "123", action: "pay" })
          expect(paid.status).toBe(303)
          const xaf = (yield* snapshot(api)).wallets.find((w: any) => w.currency === "XAF")
          expect(xaf).toMatchObject({ pending_balance: 9_800, balance: 1_000_000 })
          yield* advance(api, 86_401)
          expect((yield* snapshot(api)).wallets.find((w: any) => w.currency === "XAF")).toMatchObject({ pending_balance: 0, balance: 1_009_800 })
          yield* assertInvariants(api)
        })
      )
    })
  )
})
