/**
 * Failures without an HTTP answer. Only errors raised while resolving or connecting prove the
 * request never left; anything later (reset, hang up, timeout) may have reached the server.
 */
import type { HttpClientError } from "@effect/platform"
import { Duration } from "effect"
import { Transient } from "./Classify.ts"
import { type ClientError, NotSent, OutcomeUnknown, UnexpectedResponse } from "./Errors.ts"

const BEFORE_SEND_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "EAI_FAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_INVALID_URL",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID"
])
const BEFORE_SEND_SYSCALLS = new Set(["connect", "getaddrinfo"])
/** Worth another GET attempt: the service may come back. */
const RETRYABLE_CODES = new Set(["ECONNREFUSED", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"])

interface Facts {
  readonly codes: ReadonlyArray<string>
  readonly syscalls: ReadonlyArray<string>
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined

/** Error codes and syscalls along the cause chain (fetch and undici nest them; happy eyeballs aggregates). */
export const transportFacts = (cause: unknown): Facts => {
  const codes: Array<string> = []
  const syscalls: Array<string> = []
  const visit = (value: unknown, depth: number) => {
    if (depth > 6 || typeof value !== "object" || value === null) return
    const code = field(value, "code")
    const syscall = field(value, "syscall")
    if (typeof code === "string") codes.push(code)
    if (typeof syscall === "string") syscalls.push(syscall)
    visit(field(value, "cause"), depth + 1)
    const errors = field(value, "errors")
    if (Array.isArray(errors)) errors.forEach((e) => visit(e, depth + 1))
  }
  visit(cause, 0)
  return { codes, syscalls }
}

const describe = (facts: Facts, fallback: string) => facts.codes[0] ?? fallback

export class TimedOut {
  readonly _tag = "TimedOut"
  constructor(readonly after: Duration.Duration) {}
}

/** An answer longer than its endpoint's cap (Exchange.ts): reading stopped there, the connection dropped. */
export class TooLarge {
  readonly _tag = "TooLarge"
  constructor(readonly status: number, readonly limit: number, readonly declared?: number) {}
}

const sizeOf = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${Math.round(bytes / 1024)} KiB`)

/** What a failure without an answer means, for a GET (retryable or not) or a POST. */
export const failureWithoutAnswer = (
  method: "GET" | "POST",
  error: HttpClientError.HttpClientError | TimedOut | TooLarge
): ClientError | Transient => {
  const post = method === "POST"
  const afterSend = (reason: string) =>
    post ? new OutcomeUnknown({ reason }) : new Transient({ reason, rateLimited: false, notSent: false })
  if (error._tag === "TimedOut") return afterSend(`no answer within ${Duration.format(error.after)}`)
  if (error._tag === "TooLarge") {
    // A service fault, not worth asking again: a POST's payout may exist all the same.
    const reason = `answer longer than ${sizeOf(error.limit)}${error.declared === undefined ? "" : ` (${error.declared} bytes declared)`}: not read`
    return post ? new OutcomeUnknown({ reason, status: error.status }) : new UnexpectedResponse({ status: error.status, excerpt: reason })
  }
  if (error._tag === "ResponseError") return afterSend(`answer cut off (${describe(transportFacts(error.cause), error.reason)})`)
  if (error.reason === "InvalidUrl") return new NotSent({ reason: "invalid URL" })
  if (error.reason === "Encode") return new NotSent({ reason: "request body could not be encoded" })
  const facts = transportFacts(error.cause)
  const beforeSend = facts.codes.some((c) => BEFORE_SEND_CODES.has(c)) ||
    facts.syscalls.some((s) => BEFORE_SEND_SYSCALLS.has(s))
  if (!beforeSend) return afterSend(`connection lost (${describe(facts, "transport error")})`)
  const reason = `could not connect (${describe(facts, "transport error")})`
  if (!post && facts.codes.some((c) => RETRYABLE_CODES.has(c))) {
    return new Transient({ reason, rateLimited: false, notSent: true })
  }
  return new NotSent({ reason })
}
