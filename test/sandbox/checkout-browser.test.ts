/** The card checkout page driven in headless Chromium (playwright-core, the system's /usr/bin/chromium). */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, Page } from "playwright-core"
import { browser } from "../kit/Browser.ts"
import { advance, assertInvariants, cardPayin, sandbox, status, webhooks, receiver } from "../kit/Sandbox.ts"

/** The merchant's shop: answers its return and cancel pages. */
const shop = Effect.acquireRelease(
  Effect.async<{ server: Http.Server; origin: string }>((resume) => {
    const server = Http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://shop.invalid")
      res.writeHead(200, { "content-type": "text/html" }).end(`<title>shop ${url.pathname}</title><h1>${url.pathname} ${url.searchParams.get("status")}</h1>`)
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })))
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

const page = (b: Browser) => Effect.acquireRelease(Effect.promise(() => b.newPage()), (p) => Effect.promise(() => p.close()))

const fill = (p: Page, number: string, expiry: string, cvv: string) =>
  Effect.promise(async () => {
    await p.getByLabel("Card number").fill(number)
    await p.getByLabel("Expiry date (MM/YY)").fill(expiry)
    await p.getByLabel("Security code (CVV)").fill(cvv)
  })

const click = (p: Page, name: string) => Effect.promise(() => Promise.all([p.waitForLoadState("load"), p.getByRole("button", { name }).click()]))

describe("card checkout in headless Chromium", () => {
  it.scopedLive(
    "pays with the success card, shows invalid input, declines, cancels, and refuses after expiry",
    () =>
      Effect.gen(function* () {
        const b = yield* browser
        const { origin } = yield* shop
        const hooks = yield* receiver()
        const api = yield* sandbox()
        const urls = { return_url: `${origin}/return`, cancel_url: `${origin}/cancel`, callback_url: hooks.url }
        const p = yield* page(b)

        const paid = (yield* cardPayin(api, urls)).json
        yield* Effect.promise(() => p.goto(paid.payment_url))
        expect(yield* Effect.promise(() => p.title())).toMatch(/Sandbox checkout/)
        yield* fill(p, "4242", "13/20", "1")
        yield* click(p, "Pay now")
        const alert = yield* Effect.promise(() => p.getByRole("alert").innerText())
        expect(alert).toMatch(/card number is not valid[\s\S]*MM\/YY[\s\S]*3-digit/)
        expect(yield* Effect.promise(() => p.getByLabel("Card number").getAttribute("aria-invalid"))).toBe("true")
        Fs.mkdirSync("test-output", { recursive: true })
        yield* Effect.promise(() => p.screenshot({ path: "test-output/checkout-invalid.png", fullPage: true }))
        yield* fill(p, "4242 4242 4242 4242", "12/39", "123")
        yield* Effect.promise(() => p.screenshot({ path: "test-output/checkout.png", fullPage: true }))
        yield* click(p, "Pay now")
        expect(p.url()).toBe(`${origin}/return?reference=${paid.reference}&status=completed`)
        expect((yield* status(api, paid.reference)).json.data.status).toBe("completed")

        const declined = (yield* cardPayin(api, urls)).json
        yield* Effect.promise(() => p.goto(declined.payment_url))
        yield* fill(p, "4000000000000002", "01/40", "999")
        yield* click(p, "Pay now")
        expect(p.url()).toBe(`${origin}/return?reference=${declined.reference}&status=failed`)

        const cancelled = (yield* cardPayin(api, urls)).json
        yield* Effect.promise(() => p.goto(cancelled.payment_url))
        yield* click(p, "Cancel payment")
        expect(p.url()).toBe(`${origin}/cancel?reference=${cancelled.reference}&status=cancelled`)

        const late = (yield* cardPayin(api, urls)).json
        yield* Effect.promise(() => p.goto(late.payment_url))
        yield* advance(api, 31 * 60)
        yield* fill(p, "4242424242424242", "12/39", "123")
        yield* click(p, "Pay now")
        expect(yield* Effect.promise(() => p.getByRole("heading", { level: 1 }).innerText())).toBe("Checkout expired")
        expect((yield* status(api, late.reference)).json.data.status).toBe("expired")

        const events = (yield* webhooks(hooks, 4)).map((h) => `${h.body.data.reference} ${h.body.event}`)
        expect(events.sort()).toEqual(
          [`${paid.reference} payin.completed`, `${declined.reference} payin.failed`, `${cancelled.reference} payin.cancelled`, `${late.reference} payin.expired`].sort()
        )
        yield* assertInvariants(api)
      }),
    30_000
  )
})
