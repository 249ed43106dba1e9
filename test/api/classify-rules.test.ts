import { HttpClientError, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Either, FastCheck as fc, Option, Schema } from "effect"
import { type Answer, classify, type Endpoint, failureWithoutAnswer, makeScrub, TimedOut, transportFacts } from "../../src/api/Classify.ts"
import { PayoutResponse, WalletsResponse } from "../../src/api/Schemas.ts"
import * as F from "./support/fixtures.ts"

const scrub = makeScrub(["the-key-1234", "the-secret-5678"])
const payout = (answer: Answer, method: "GET" | "POST" = "POST", endpoint: Endpoint = "payout") =>
  classify({ method, endpoint, success: Schema.decodeUnknownOption(PayoutResponse), nowMs: 0, scrub }, answer)
const wallet = (answer: Answer) =>
  classify({ method: "GET", endpoint: "wallet", success: Schema.decodeUnknownOption(WalletsResponse), nowMs: 0, scrub }, answer)
const tagOf = <A, E extends { readonly _tag: string }>(result: Either.Either<A, E>) =>
  Either.match(result, { onLeft: (e) => e._tag, onRight: () => "Success" })

const anyBody = fc.oneof(
  fc.constant(""),
  fc.string(),
  fc.constantFrom(F.payoutBody, F.envelopeA, F.envelopeB, { reference: "T", status: "pending" }).map((b) => JSON.stringify(b)),
  fc.jsonValue().map((v) => JSON.stringify(v))
)

describe("classification rules", () => {
  it("0: a POST answered 5xx is OutcomeUnknown whatever its body", () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 599 }), anyBody, fc.constantFrom<Endpoint>("payout", "payin"), (status, body, endpoint) => {
        expect(tagOf(payout({ status, body }, "POST", endpoint))).toBe("OutcomeUnknown")
      })
    )
  })

  it("3: the success shape wins whatever a non-5xx status code says (429 aside)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 499 }).filter((s) => s !== 429), (status) => {
        expect(tagOf(payout({ status, body: JSON.stringify({ reference: "T1", status: "pending" }) }))).toBe("Success")
        expect(tagOf(wallet({ status: status + 100, body: JSON.stringify(F.walletsBody) }))).toBe("Success")
      })
    )
  })

  it("1: envelope A by errors key, authentication first; amount only means balance on a payout", () => {
    const a = (errors: Record<string, Array<string>>) => JSON.stringify({ success: false, message: "m", errors })
    expect(tagOf(payout({ status: 200, body: a({ amount: ["x"], authentication: ["bad"] }) }))).toBe("AuthError")
    expect(tagOf(payout({ status: 422, body: a({ amount: ["x"] }) }))).toBe("InsufficientBalance")
    expect(tagOf(payout({ status: 422, body: a({ amount: ["x"] }) }, "POST", "payin"))).toBe("ValidationError")
    expect(tagOf(payout({ status: 404, body: a({ reference: ["none"] }) }, "GET", "status"))).toBe("NotFound")
    expect(tagOf(payout({ status: 200, body: a({ phoneNumber: ["x"] }) }))).toBe("ValidationError")
    expect(tagOf(payout({ status: 422, body: a({}) }))).toBe("ValidationError")
  })

  it("an envelope without keyed errors defers to 401/403/5xx", () => {
    const bare = JSON.stringify({ success: false, message: "nope" })
    expect(tagOf(wallet({ status: 503, body: bare }))).toBe("Transient")
    expect(tagOf(wallet({ status: 401, body: bare }))).toBe("AuthError")
  })

  it("a 429 is rate limiting even with an envelope keyed by field (the sandbox answers so)", () => {
    const body = JSON.stringify({ success: false, message: "Too many requests", errors: { rate: ["retry after 2 s"] } })
    const post = payout({ status: 429, body, retryAfter: "2" })
    expect(Either.getLeft(post)).toEqual(Option.some(expect.objectContaining({ _tag: "RateLimited", retryAfterMs: 2000 })))
    expect(Either.getLeft(wallet({ status: 429, body }))).toEqual(
      Option.some(expect.objectContaining({ _tag: "Transient", rateLimited: true }))
    )
  })

  it("2: envelope B is a refused pay-in, whatever its status; elsewhere it is unexpected", () => {
    const b = JSON.stringify({ error: true, status: "success", error_message: "declined" })
    expect(tagOf(payout({ status: 200, body: b }, "POST", "payin"))).toBe("PayinRefused")
    expect(tagOf(payout({ status: 400, body: b }))).toBe("UnexpectedResponse")
  })

  it("4: no parsable body: 401/403 auth, GET 5xx/408 transient, POST 2xx unknown, other unexpected", () => {
    expect(tagOf(payout({ status: 401, body: "" }))).toBe("AuthError")
    expect(tagOf(wallet({ status: 403, body: "<html/>" }))).toBe("AuthError")
    expect(tagOf(wallet({ status: 502, body: "<html/>" }))).toBe("Transient")
    expect(tagOf(wallet({ status: 408, body: "" }))).toBe("Transient")
    expect(tagOf(payout({ status: 202, body: "" }))).toBe("OutcomeUnknown")
    expect(tagOf(payout({ status: 404, body: "" }))).toBe("UnexpectedResponse")
    expect(tagOf(wallet({ status: 200, body: "{}" }))).toBe("UnexpectedResponse")
  })

  it("excerpts are bounded and scrubbed", () => {
    const left = Either.getLeft(payout({ status: 400, body: `x the-key-1234 y the-secret-5678 ${"z".repeat(900)}` }))
    const excerpt = Option.getOrThrow(left)
    expect(excerpt._tag).toBe("UnexpectedResponse")
    const text = excerpt._tag === "UnexpectedResponse" ? excerpt.excerpt : ""
    expect(text.length).toBeLessThanOrEqual(203)
    expect(text).not.toContain("the-key-1234")
    expect(text).not.toContain("the-secret-5678")
  })
})

describe("failures without an answer", () => {
  const request = HttpClientRequest.post("http://127.0.0.1/v1/x")
  const transport = (cause: unknown) => new HttpClientError.RequestError({ request, reason: "Transport", cause })
  const sysError = (code: string, syscall?: string) => Object.assign(new Error(code), { code, syscall })

  it("finds codes through fetch-style nesting and happy-eyeballs aggregates", () => {
    const nested = new TypeError("fetch failed", {
      cause: new AggregateError([sysError("ECONNREFUSED", "connect"), sysError("ENETUNREACH", "connect")])
    })
    expect(transportFacts(nested).codes).toEqual(["ECONNREFUSED", "ENETUNREACH"])
  })

  it("only connect-phase failures are NotSent; a POST otherwise is OutcomeUnknown", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]) {
      expect(failureWithoutAnswer("POST", transport(sysError(code)))._tag).toBe("NotSent")
    }
    expect(failureWithoutAnswer("POST", transport(sysError("ETIMEDOUT", "connect")))._tag).toBe("NotSent")
    for (const code of ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ETIMEDOUT"]) {
      expect(failureWithoutAnswer("POST", transport(sysError(code)))._tag).toBe("OutcomeUnknown")
    }
    expect(failureWithoutAnswer("POST", transport(new Error("mystery")))._tag).toBe("OutcomeUnknown")
    expect(failureWithoutAnswer("POST", new TimedOut(Duration.seconds(30)))._tag).toBe("OutcomeUnknown")
    expect(failureWithoutAnswer("POST", new HttpClientError.RequestError({ request, reason: "InvalidUrl" }))._tag).toBe("NotSent")
  })

  it("a GET retries what may pass (refused, reset, timeout) and gives up at once on a bad name", () => {
    expect(failureWithoutAnswer("GET", transport(sysError("ECONNREFUSED")))).toMatchObject({ _tag: "Transient", notSent: true })
    expect(failureWithoutAnswer("GET", transport(sysError("ECONNRESET")))).toMatchObject({ _tag: "Transient", notSent: false })
    expect(failureWithoutAnswer("GET", new TimedOut(Duration.seconds(1)))._tag).toBe("Transient")
    expect(failureWithoutAnswer("GET", transport(sysError("ENOTFOUND", "getaddrinfo")))._tag).toBe("NotSent")
  })
})
