/**
 * The one sandbox harness of the tests: a sandbox on an ephemeral port, plain-fetch helpers, a webhook
 * receiver and the money invariants.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Ref, Schedule, type Scope } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { serviceAccountId } from "../../src/api/ClientConfig.ts"
import { type Token, tokenOfDescription } from "../../src/domain/Token.ts"
import { launchSandbox, type SandboxOptions } from "../../src/sandbox/Sandbox.ts"
import { type SandboxState, transactionsOf, type World } from "../../src/sandbox/State.ts"

const launch = (defaults: SandboxOptions, options: SandboxOptions) =>
  Effect.orDie(launchSandbox({ webhookRetryMillis: 50, ...defaults, ...options }))

/** A sandbox for a run: funded for any batch, its clock 600 times faster so a payout settles in a second. */
export const startSandbox = (options: SandboxOptions = {}) =>
  launch({ fund: { XAF: 50_000_000, XOF: 50_000_000 }, timeScale: 600, payoutDelaySeconds: 10 }, options)

export type Sandbox = Effect.Effect.Success<ReturnType<typeof startSandbox>>

export interface Reply {
  readonly status: number
  readonly json: any
  readonly headers: Headers
}

export interface Api {
  readonly baseUrl: string
  readonly origin: string
  readonly state: World
  readonly headers: Record<string, string>
  readonly get: (path: string, headers?: Record<string, string>) => Effect.Effect<Reply>
  readonly send: (method: string, path: string, body: unknown, headers?: Record<string, string>) => Effect.Effect<Reply>
  readonly raw: (path: string, init: RequestInit) => Effect.Effect<Response, unknown>
}

const toReply = (response: Response) =>
  Effect.promise(async () => {
    const text = await response.text()
    return { status: response.status, json: text === "" ? undefined : JSON.parse(text), headers: response.headers }
  })

/** Plain-fetch helpers over a sandbox; `path` starting with "/v1" or "/__sandbox" is relative to the origin. */
export const apiOf = (info: Sandbox): Api => {
  const headers = { "X-API-Key": info.key, "X-API-Secret": info.secret, Accept: "application/json" }
  const raw = (path: string, init: RequestInit) => Effect.tryPromise(() => fetch(`${info.origin}${path}`, init))
  return {
    baseUrl: info.baseUrl,
    origin: info.origin,
    state: info.state,
    headers,
    raw,
    get: (path, extra = {}) => Effect.orDie(raw(path, { headers: { ...headers, ...extra } })).pipe(Effect.flatMap(toReply)),
    send: (method, path, body, extra = {}) =>
      Effect.orDie(
        raw(path, {
          method,
          headers: { ...headers, "Content-Type": "application/json", ...extra },
          body: typeof body === "string" ? body : JSON.stringify(body)
        })
      ).pipe(Effect.flatMap(toReply))
  }
}

/** A sandbox for the API's rules: its own clock, 1,000,000 of each currency, with `apiOf`'s helpers. */
export const sandbox = (options: SandboxOptions = {}): Effect.Effect<Api, never, Scope.Scope> =>
  Effect.map(launch({ fund: { XAF: 1_000_000, XOF: 1_000_000 } }, options), apiOf)

/** A snapshot of the sandbox's state. */
export const stateOf = (sandbox: Pick<Sandbox, "state">): Effect.Effect<SandboxState> => Ref.get(sandbox.state)

/** The sandbox's transactions now, in creation order. */
export const transactionsNow = (sandbox: Pick<Sandbox, "state">) => Effect.map(stateOf(sandbox), transactionsOf)

/**
 * The sandbox's account as payouts names it: its host plus its wallets' ids. Synchronous for its
 * many callers: reading a Ref neither fails nor waits.
 */
export const accountOf = (sandbox: Pick<Sandbox, "baseUrl" | "state">) =>
  serviceAccountId(sandbox.baseUrl, Object.values(Effect.runSync(stateOf(sandbox)).wallets).map((w) => w.id))

/** The sandbox's admin routes, read as a run's test reads them. */
export const admin = (sandbox: Sandbox) => {
  const api = apiOf(sandbox)
  const call = (method: string, path: string, body?: unknown) =>
    Effect.map(method === "GET" ? api.get(path) : api.send(method, path, body), (reply) => reply.json as any)
  return {
    payouts: Effect.map(call("GET", "/__sandbox/payouts"), (r) => r.payouts as Array<{ reference: string; description: string; status: string; amount: number; phone?: string; phoneNumber?: string }>),
    invariants: call("GET", "/__sandbox/invariants") as Effect.Effect<{ ok: boolean; violations: Array<string> }>,
    faults: (faults: string) => call("PUT", "/__sandbox/faults", { faults }),
    testData: call("GET", "/__sandbox/test-data")
  }
}

/** Every payout of the sandbox that carries the token of a row, by token. */
export const countByToken = (payouts: ReadonlyArray<{ description: string }>) => {
  const counts = new Map<Token, number>()
  for (const p of payouts) {
    const token = tokenOfDescription(p.description)
    if (token !== null) counts.set(token, (counts.get(token) ?? 0) + 1)
  }
  return counts
}

/** The fields a payout and a mobile-money pay-in share, with the overrides given. */
const requestBody = (customer: { readonly name: string; readonly phone: string; readonly email: string }, overrides: Record<string, unknown>) => ({
  currency: "XAF",
  phoneNumber: customer.phone,
  operator: "carrier1_cm",
  return_url: "https://merchant.example/return",
  cancel_url: "https://merchant.example/cancel",
  callback_url: "https://merchant.example/callback",
  customer,
  ...overrides
})

export const payoutBody = (overrides: Record<string, unknown> = {}) =>
  requestBody({ name: "Awa Diallo", phone: "+237670000001", email: "awa@example.com" }, {
    amount: 1000,
    description: "Seller settlement",
    payout_details: { seller: "S-1" },
    ...overrides
  })

export const payout = (api: Api, overrides: Record<string, unknown> = {}) =>
  api.send("POST", "/v1/payments/payout/mobile-money", payoutBody(overrides))

export const status = (api: Api, reference: string) => api.get(`/v1/payment/status/${reference}`)

export const advance = (api: Api, seconds: number) => api.send("POST", "/__sandbox/clock/advance", { seconds })

export const wallet = (api: Api, currency: string) =>
  Effect.map(api.get("/v1/wallet"), (r) => r.json.wallets.find((w: any) => w.currency === currency))

/** Retries `check` (an effect that fails or throws while not yet true) for up to `millis`. */
export const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, millis = 5_000) =>
  check.pipe(
    Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo(millis))),
    Effect.catchAllDefect((defect) => Effect.die(defect))
  )

export const statusIs = (api: Api, reference: string, expected: string) =>
  eventually(
    Effect.flatMap(status(api, reference), (r) =>
      r.json.data.status === expected ? Effect.succeed(r.json.data) : Effect.fail(`still ${r.json.data.status}`)
    )
  )

/** The sandbox's own check, plus ours: wallet figures equal the journal's sums, per currency. */
export const assertInvariants = (api: Api) =>
  Effect.gen(function* () {
    const invariants = yield* api.get("/__sandbox/invariants")
    expect(invariants.json).toEqual({ ok: true, violations: [] })
    // Read the journal on both sides of the wallets, so a movement landing in between is retried.
    const readBoth = Effect.gen(function* () {
      const journal = (yield* api.get("/__sandbox/journal")).json.entries as Array<any>
      const wallets = (yield* api.get("/v1/wallet")).json.wallets as Array<any>
      const again = (yield* api.get("/__sandbox/journal")).json.entries as Array<any>
      return again.length === journal.length ? Effect.succeed({ journal, wallets }) : Effect.fail("the journal moved")
    }).pipe(Effect.flatten)
    const { journal, wallets } = yield* eventually(readBoth)
    for (const w of wallets) {
      const mine = journal.filter((e) => e.currency === w.currency)
      const sum = (k: string) => Math.round(mine.reduce((s, e) => s + e[k] * 100, 0)) / 100
      expect({ balance: w.balance, pending: w.pending_balance, reserved: w.reserved_balance }).toEqual({
        balance: sum("balance"),
        pending: sum("pending"),
        reserved: sum("reserved")
      })
      expect(w.available_balance).toBe(Math.round((w.balance - w.reserved_balance) * 100) / 100)
    }
    const payouts = (yield* api.get("/__sandbox/payouts")).json.payouts as Array<any>
    for (const w of wallets) {
      const inFlight = payouts
        .filter((p) => p.currency === w.currency && (p.status === "pending" || p.status === "processing"))
        .reduce((s, p) => s + p.amount + p.fee, 0)
      expect(w.reserved_balance).toBe(inFlight)
    }
  })

export interface Webhook {
  readonly at: number
  readonly body: any
}

/** A webhook receiver answering `statusFor(n)` to its n-th request (0-based). */
export const receiver = (statusFor: (n: number) => number = () => 200) =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; url: string; received: Array<Webhook> }>((resume) => {
      const received: Array<Webhook> = []
      let n = 0
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const code = statusFor(n++)
          received.push({ at: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
          res.writeHead(code, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, url: `http://127.0.0.1:${port}/webhooks`, received }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ url, received }) => ({ url, received })))

export const payinBody = (overrides: Record<string, unknown> = {}) =>
  requestBody({ name: "Jean Mbarga", phone: "+237690000001", email: "jean@example.com" }, {
    amount: 10_000,
    description: "Order 42",
    payment_details: { order: "42" },
    ...overrides
  })

export const cardBody = (overrides: Record<string, unknown> = {}) => {
  const { phoneNumber: _, ...rest } = payinBody({ amount: 2_500, currency: "USD", operator: "cardnet1", ...overrides })
  return rest
}

export const payin = (api: Api, overrides: Record<string, unknown> = {}) =>
  api.send("POST", "/v1/payments/payin/mobile-money", payinBody(overrides))

export const cardPayin = (api: Api, overrides: Record<string, unknown> = {}) =>
  api.send("POST", "/v1/payments/payin/card", cardBody(overrides))

/** Submits the checkout form as a browser would (urlencoded), without following the redirect. */
export const submitCheckout = (paymentUrl: string, fields: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(paymentUrl, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString()
    })
    return { status: response.status, location: response.headers.get("location"), html: await response.text() }
  })

/** Waits until the receiver holds at least `n` webhooks; answers them. */
export const webhooks = (hooks: { readonly received: Array<Webhook> }, n: number, millis = 5_000) =>
  eventually(Effect.suspend(() => (hooks.received.length >= n ? Effect.succeed(hooks.received.slice()) : Effect.fail(`${hooks.received.length} of ${n} webhooks`))), millis)

/** The sandbox's fault and delivery counters. */
export const counters = (api: Api) => Effect.map(api.get("/__sandbox/faults"), (r) => r.json.counters as Record<string, number>)

/** Waits until the sandbox has finished `n` webhook deliveries (delivered or given up): what it sent is then all received. */
export const deliveriesDone = (api: Api, n: number, millis = 10_000) =>
  eventually(
    Effect.flatMap(counters(api), (c) => {
      const done = (c["webhooks.delivered"] ?? 0) + (c["webhooks.gave_up"] ?? 0)
      return done >= n ? Effect.succeed(c) : Effect.fail(`${done} of ${n} deliveries done`)
    }),
    millis
  )

/** The success test card, any future expiry, any 3-digit CVV. */
export const PAY = { number: "4242424242424242", expiry: "12/39", cvv: "123", action: "pay" }

/** A conformance test: a fresh sandbox, the rule's body, then the money invariant. */
export const rule = <E>(name: string, body: (api: Api) => Effect.Effect<void, E, Scope.Scope>, options: SandboxOptions = {}) =>
  it.scopedLive(name, () =>
    Effect.gen(function* () {
      const api = yield* sandbox({ payinDelaySeconds: 0, ...options })
      yield* body(api)
      yield* assertInvariants(api)
    })
  )
