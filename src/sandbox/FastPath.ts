/**
 * The hot routes (payout POST, status GET, wallet GET, transactions listing) served by a plain Node
 * request handler: no fiber, router, span or response pipeline per request, which cost more than the
 * sandbox's own work and made it the bottleneck of every bench. It takes a request only when none of
 * the gate's fault machinery applies to its endpoint (no rate limit, no gate fault but latency, no
 * commit hold) and no data file is kept; latency it waits out itself, as the gate would; anything else goes on to the Effect app. Both call the same route
 * functions and gate checks, so a request gets the same answer, counters and state either way.
 */
import type * as Http from "node:http"
import { CLOCK_HEADER } from "./Clock.ts"
import type { SandboxContext } from "./Context.ts"
import type { FaultEndpoint } from "./Faults.ts"
import { Effect } from "effect"
import { countRequest, faultsApply, headerRefusal, latencyMillis, onlyLatencyApplies } from "./Gate.ts"
import type { Answer } from "./Http.ts"
import { payoutAnswer } from "./routes/Payouts.ts"
import { statusAnswer } from "./routes/Status.ts"
import { transactionsAnswer } from "./routes/Transactions.ts"
import { walletsAnswer } from "./routes/Wallets.ts"

/** The body size the Effect server accepts (NodeHttpServer's default); larger bodies are refused alike. */
const MAX_BODY_BYTES = 10 * 1024 * 1024

type Handler = (ctx: SandboxContext, request: Http.IncomingMessage, body: string, now: number) => Answer

interface HotRoute {
  readonly endpoint: FaultEndpoint
  readonly readsBody: boolean
  readonly handle: Handler
}

const STATUS_PREFIX = "/v1/payment/status/"
/** References the router would hand over undecoded; anything else takes the router's path. */
const PLAIN_REFERENCE = /^[A-Za-z0-9_-]+$/

const payout: HotRoute = { endpoint: "payout", readsBody: true, handle: (ctx, _, body, now) => payoutAnswer(ctx, body, now) }
const wallets: HotRoute = { endpoint: "wallet", readsBody: false, handle: (ctx) => walletsAnswer(ctx) }
const transactions: HotRoute = {
  endpoint: "transactions",
  readsBody: false,
  handle: (ctx, request, _, now) => transactionsAnswer(ctx, new URL(request.url ?? "", `http://${request.headers.host ?? "127.0.0.1"}`), now)
}
const status: HotRoute = {
  endpoint: "status",
  readsBody: false,
  handle: (ctx, request, _, now) => statusAnswer(ctx, pathOf(request).slice(STATUS_PREFIX.length), now)
}

const pathOf = (request: Http.IncomingMessage) => {
  const url = request.url ?? ""
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Exact matches of the router's hot routes only; every other shape of path is left to the router. */
const routeOf = (method: string | undefined, path: string): HotRoute | undefined => {
  if (method === "POST") return path === "/v1/payments/payout/mobile-money" ? payout : undefined
  if (method !== "GET") return undefined
  if (path === "/v1/wallet") return wallets
  if (path === "/v1/wallet/transactions") return transactions
  return path.startsWith(STATUS_PREFIX) && PLAIN_REFERENCE.test(path.slice(STATUS_PREFIX.length)) ? status : undefined
}

/**
 * A Node request handler answering the hot routes itself: true when it took the request, false to
 * pass it on. `saved` runs after each handled request, as the app's persist step does.
 */
export const makeFastPath =
  (ctx: SandboxContext, saved: () => void) =>
  (request: Http.IncomingMessage, response: Http.ServerResponse): boolean => {
    const route = routeOf(request.method, pathOf(request))
    if (route === undefined) return false
    const delayed = onlyLatencyApplies(ctx.faults.settings, route.endpoint)
    if (!delayed && faultsApply(ctx.faults.settings, route.endpoint)) return false
    const send = (answer: Answer) => {
      saved()
      // The Date header tells the service's own (virtual) time, as the app's responses do.
      // Not `{ ...answer.headers, ... }`: a spread followed by more properties costs microseconds on Node 20.
      const headers = {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(answer.json),
        date: new Date(ctx.clock.unsafeNow()).toUTCString(),
        [CLOCK_HEADER]: ctx.clock.declaration()
      }
      response.writeHead(answer.status, answer.headers === undefined ? headers : Object.assign({}, answer.headers, headers))
      response.end(answer.json)
    }
    const refusal = headerRefusal(ctx.settings, request.method ?? "", request.headers)
    if (refusal !== undefined) {
      send(refusal)
      return true
    }
    countRequest(ctx.faults, route.endpoint)
    // Latency drawn when the request arrives and waited before the route runs, as the gate does; a
    // client gone meanwhile gets nothing done (the Effect server interrupts its handler alike).
    // eslint-disable-next-line no-restricted-syntax -- a plain handler, no fiber: the seeded draw is synchronous
    const wait = delayed ? Effect.runSync(latencyMillis(ctx.faults, route.endpoint)) : 0
    const respond = (body: string) => send(route.handle(ctx, request, body, ctx.clock.unsafeNow()))
    let answer = respond
    if (wait > 0) {
      let gone = false
      response.once("close", () => {
        gone = true
      })
      answer = (body) => {
        // eslint-disable-next-line no-restricted-globals -- a plain Node handler has no fiber to sleep in
        setTimeout(() => {
          if (!gone) respond(body)
        }, wait)
      }
    }
    if (!route.readsBody) {
      answer("")
      return true
    }
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    // A body over the limit reads as empty (refused, as the app does); a client gone before its body
    // ended gets no answer and changes nothing.
    const finish = (body: string) => {
      if (done) return
      done = true
      answer(body)
    }
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) finish("")
      else if (!done) chunks.push(chunk)
    })
    request.on("end", () => finish(Buffer.concat(chunks).toString("utf8")))
    request.on("error", () => {
      done = true
    })
    return true
  }
