/**
 * Every request passes the gate: credentials (401), Accept (406), Content-Type of bodies (415); then,
 * for /v1 only, the rate limit (429 + Retry-After) and the injected faults around the handler.
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Clock, Effect, Option, Ref } from "effect"
import { SandboxContext, type Settings } from "./Context.ts"
import { admit, count, type FaultState, type FaultWorld, openBurst, takeBurst } from "./FaultWorld.ts"
import { type FaultEndpoint, faultOf, type ProbabilityKind } from "./FaultSettings.ts"
import { type Answer, answerA, envelopeA, toResponse } from "./Http.ts"
import { echoRefusal, echoText, withEcho } from "./EchoSecret.ts"
import { hugeBody, hugeBodyOf } from "./AnswerFaults.ts"

export const endpointOf = (method: string, path: string): FaultEndpoint | undefined => {
  if (method === "GET" && (path === "/v1/wallet" || path === "/v1/wallet/summary")) return "wallet"
  if (method === "GET" && path === "/v1/wallet/transactions") return "transactions"
  if (method === "GET" && path.startsWith("/v1/payment/status/")) return "status"
  if (method === "POST" && path.startsWith("/v1/payments/payout/")) return "payout"
  if (method === "POST" && path.startsWith("/v1/payments/payin/")) return "payin"
  return undefined
}

const acceptsJson = (accept: string | undefined): boolean =>
  accept === undefined ||
  accept.trim() === "" ||
  accept.split(",").some((item) => {
    const [type, ...params] = item.split(";").map((s) => s.trim().toLowerCase())
    const q = params.find((p) => p.startsWith("q="))
    return ["application/json", "application/*", "*/*"].includes(type) && (q === undefined || Number(q.slice(2)) > 0)
  })

const isJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0].trim().toLowerCase() === "application/json"

type RequestHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: RequestHeaders, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/** Credentials (401), Accept (406), Content-Type of bodies (415): the refusal, else undefined. */
const headerRefusal = (settings: Settings, method: string, headers: RequestHeaders): Answer | undefined => {
  const key = headers["x-api-key"]
  const secret = headers["x-api-secret"]
  const known = settings.key === key && settings.secret === secret
  if (!known && !(settings.extraCredentials ?? []).some((c) => key === c.key && secret === c.secret)) {
    return answerA(401, "Invalid credentials", { authentication: ["The API key or secret is invalid."] })
  }
  if (!acceptsJson(header(headers, "accept"))) {
    return answerA(406, "Not acceptable", { accept: ["The Accept header must allow application/json."] })
  }
  if ((method === "POST" || method === "PUT" || method === "PATCH") && !isJson(header(headers, "content-type"))) {
    return answerA(415, "Unsupported media type", { content_type: ["The Content-Type header must be application/json."] })
  }
  return undefined
}

/** The latency drawn for one request (ms), as the gate draws it: one draw of the sandbox's seeded random. */
const latencyMillis = (world: FaultWorld, endpoint: FaultEndpoint): Effect.Effect<number> => {
  const range = faultOf(world.settings, endpoint, "latency")
  if (range === undefined) return Effect.succeed(0)
  return Effect.map(world.random.next, (x) => Math.round(range.min + x * (range.max - range.min)))
}

const roll = (faults: FaultState, world: FaultWorld, endpoint: FaultEndpoint, kind: ProbabilityKind) => {
  const p = faultOf(world.settings, endpoint, kind) ?? 0
  if (p <= 0) return Effect.succeed(false)
  return Effect.flatMap(world.random.next, (x) => (x < p ? Effect.as(count(faults, `${endpoint}.${kind}`), true) : Effect.succeed(false)))
}

/** A 429 burst under way or opening now: the Retry-After seconds, else undefined. */
const inBurst = (faults: FaultState, world: FaultWorld, endpoint: FaultEndpoint) =>
  Effect.gen(function* () {
    if (!(yield* Ref.modify(faults, (w) => takeBurst(w, endpoint)))) {
      if (!(yield* roll(faults, world, endpoint, "burst"))) return undefined
      yield* Ref.update(faults, (w) => openBurst(w, endpoint, faultOf(world.settings, endpoint, "burst_len") ?? 3))
    }
    return Math.max(1, Math.ceil((faultOf(world.settings, endpoint, "retry_after") ?? 1000) / 1000))
  })

/** 429 with Retry-After in seconds, or (retry_date) as an HTTP date, in real time. */
const tooMany = (faults: FaultState, world: FaultWorld, endpoint: FaultEndpoint, seconds: number, realNow: number) =>
  Effect.map(roll(faults, world, endpoint, "retry_date"), (asDate) =>
    envelopeA(429, "Too many requests", { rate: [`Rate limit exceeded; retry after ${seconds} s.`] }, {
      "retry-after": asDate ? new Date(Math.ceil(realNow / 1000) * 1000 + seconds * 1000).toUTCString() : String(seconds)
    })
  )

const serverError = () => envelopeA(500, "Internal server error", {})

const latency = (world: FaultWorld, endpoint: FaultEndpoint) =>
  faultOf(world.settings, endpoint, "latency") === undefined ? Effect.void : Effect.flatMap(latencyMillis(world, endpoint), (ms) => Effect.sleep(ms))

export const TEST_DATA_PATH = "/__sandbox/test-data"

/** Whether a peer address is this machine (IPv4 loopback, also IPv4-mapped, or ::1). */
export const isLoopbackPeer = (address: string): boolean => /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address) || address === "::1"

export const gate = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest | SandboxContext> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, "http://sandbox.invalid").pathname
    if (path.startsWith("/checkout/")) return yield* app
    // The test numbers and cards are public (the same in every sandbox, no secret among them): a
    // browser on this machine opens the link the banner prints without credentials.
    if (request.method === "GET" && path === TEST_DATA_PATH && Option.exists(request.remoteAddress, isLoopbackPeer)) return yield* app
    const ctx = yield* SandboxContext
    const refusal = headerRefusal(ctx.settings, request.method, request.headers)
    if (refusal !== undefined) return toResponse(refusal)
    if (!path.startsWith("/v1/")) return yield* app
    const faults = ctx.faults
    const endpoint = endpointOf(request.method, path)
    const realNow = yield* Clock.currentTimeMillis
    const retryAfter = yield* Ref.modify(faults, (w) => admit(w, endpoint, realNow))
    // The settings, seed and random in force as this request came in (PUT /__sandbox/faults replaces them whole).
    const world = yield* Ref.get(faults)
    if (retryAfter !== undefined) return yield* tooMany(faults, world, "*", retryAfter, realNow)
    if (endpoint === undefined) return yield* app
    const burst = yield* inBurst(faults, world, endpoint)
    if (burst !== undefined) return yield* tooMany(faults, world, endpoint, burst, realNow)
    yield* latency(world, endpoint)
    if (yield* roll(faults, world, endpoint, "error_before")) return serverError()
    const echo = faultOf(world.settings, endpoint, "echo_secret")
    if (echo !== undefined) {
      const credentials = { key: header(request.headers, "x-api-key") ?? "", secret: header(request.headers, "x-api-secret") ?? "" }
      yield* count(faults, `${endpoint}.echo_secret`)
      if (echo.refuse >= 1 || (echo.refuse > 0 && (yield* world.random.next) < echo.refuse)) return toResponse(echoRefusal(credentials, echo.form))
      return withEcho(yield* answered(faults, world, endpoint, request, app), echoText(credentials, echo.form))
    }
    return yield* answered(faults, world, endpoint, request, app)
  })

/** The handler's answer, or the fault that replaces it after the work (reset, hold, 500). */
const answered = <E, R>(
  faults: FaultState,
  world: FaultWorld,
  endpoint: FaultEndpoint,
  request: HttpServerRequest.HttpServerRequest,
  app: HttpApp.Default<E, R>
) =>
  Effect.gen(function* () {
    const response: HttpServerResponse.HttpServerResponse = yield* app
    if (yield* roll(faults, world, endpoint, "reset_after")) {
      yield* Effect.sync(() => NodeHttpServerRequest.toIncomingMessage(request).socket.destroy())
      return yield* Effect.never
    }
    if (yield* roll(faults, world, endpoint, "hold_after")) return yield* Effect.never
    if (yield* roll(faults, world, endpoint, "error_after")) return serverError()
    const huge = hugeBodyOf(world, endpoint)
    return huge === undefined ? response : yield* hugeBody(faults, endpoint, huge)
  })
