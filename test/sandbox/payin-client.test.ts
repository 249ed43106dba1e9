/** The client's pay-in methods (src/api/Client.ts) against the sandbox over a real port. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { PaymentClient } from "../../src/api/Client.ts"
import type { RequestGate } from "../../src/api/RequestGate.ts"
import type { CardPayinRequest, MobileMoneyPayinRequest } from "../../src/api/Schemas.ts"
import { type SandboxInfo, startSandbox } from "../../src/sandbox/Sandbox.ts"
import { cardBody, payinBody, submitCheckout } from "../kit/Sandbox.ts"
import { clientLayer } from "../kit/Client.ts"

const withClient = <A, E>(use: (client: PaymentClient, info: SandboxInfo) => Effect.Effect<A, E, RequestGate>) =>
  Effect.gen(function* () {
    const info = yield* Effect.orDie(startSandbox({ payinDelaySeconds: 0 }))
    return yield* Effect.flatMap(PaymentClient, (client) => use(client, info)).pipe(Effect.provide(clientLayer(info)))
  })

const mobile = (o: Record<string, unknown> = {}) => payinBody(o) as unknown as MobileMoneyPayinRequest
const card = (o: Record<string, unknown> = {}) => cardBody(o) as unknown as CardPayinRequest

const waitFor = (client: PaymentClient, reference: string, expected: string) =>
  client.status(reference).pipe(
    Effect.filterOrFail((r) => r.status === expected, (r) => `still ${r.status}`),
    Effect.retry({ times: 100, schedule: Schedule.spaced("20 millis") })
  )

describe("PaymentClient pay-ins against the sandbox", () => {
  it.scopedLive("payinMobileMoney: acceptance (status success), then the completed record with customer and details", () =>
    withClient((client) =>
      Effect.gen(function* () {
        const accepted = yield* client.payinMobileMoney(mobile())
        expect(accepted).toMatchObject({ error: false, status: "success", currency: "XAF" })
        expect(accepted.message).toMatch(/confirm/)
        const record = yield* client.status(accepted.reference)
        expect(record).toMatchObject({ type: "payin", amount: 10_000, payment_details: { order: "42" } })
        expect(record.customer?.email).toBe("jean@example.com")
        const wallets = yield* client.wallets()
        expect(wallets.find((w) => w.currency === "XAF")?.pending_balance).toBeGreaterThanOrEqual(0)
      })
    )
  )

  it.scopedLive("payinMobileMoney: envelope B refusals become PayinRefused with the error_message", () =>
    withClient((client) =>
      Effect.gen(function* () {
        const refused = yield* Effect.flip(client.payinMobileMoney(mobile({ operator: "carrier9_xx" })))
        expect(refused._tag).toBe("PayinRefused")
        expect(refused.message).toMatch(/operator carrier9_xx is invalid/)
        const badPhone = yield* Effect.flip(client.payinMobileMoney(mobile({ phoneNumber: "+33612345678" })))
        expect(badPhone._tag).toBe("PayinRefused")
      })
    )
  )

  it.scopedLive("payinCard: payment_url, expires_at and amount in the smallest unit; paying completes it", () =>
    withClient((client) =>
      Effect.gen(function* () {
        const accepted = yield* client.payinCard(card({ amount: 1_999, currency: "EUR", operator: "cardnet2" }))
        expect(accepted).toMatchObject({ error: false, status: "success", amount: 1_999, currency: "EUR" })
        expect(Date.parse(accepted.expires_at ?? "")).toBeGreaterThan(Date.now() + 29 * 60_000)
        const paid = yield* submitCheckout(accepted.payment_url, { number: "4242424242424242", expiry: "12/39", cvv: "321", action: "pay" })
        expect(paid.status).toBe(303)
        expect(yield* waitFor(client, accepted.reference, "completed")).toMatchObject({ amount: 19.99, currency: "EUR", operator: "cardnet2" })
        const refused = yield* Effect.flip(client.payinCard(card({ amount: 0 })))
        expect(refused._tag).toBe("PayinRefused")
      })
    )
  )
})
