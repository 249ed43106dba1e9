/**
 * DESIGN.md section 3: an HTTP answer is classified by its body first, the status code only when
 * the body says nothing. Pure, so the rules are testable without a socket.
 */
import type { HttpClientError } from "@effect/platform"
import { Data, Duration, Either, Option, Schema } from "effect"
import {
  AuthError,
  type ClientError,
  InsufficientBalance,
  NotFound,
  NotSent,
  OutcomeUnknown,
  PayinRefused,
  RateLimited,
  UnexpectedResponse,
  ValidationError
} from "./Errors.ts"
import { makeRedact } from "../domain/Secrets.ts"
import { blankControl } from "../domain/Text.ts"
import { parseRetryAfter } from "./RetryAfter.ts"
import { EnvelopeA, EnvelopeB } from "./Schemas.ts"

export type Endpoint = "wallet" | "transactions" | "summary" | "status" | "payout" | "payin"

export interface Answer {
  readonly status: number
  readonly retryAfter?: string | undefined
  readonly body: string
}

/** A GET failure worth another attempt; never leaves the client. */
export class Transient extends Data.TaggedError("Transient")<{
  readonly reason: string
  readonly status?: number
  readonly retryAfterMs?: number
  readonly rateLimited: boolean
  readonly notSent: boolean
}> {}

export const EXCERPT_LENGTH = 200

/**
 * Removes the credentials from text the server sent back, in every spelling (domain/Secrets.ts), and
 * bounds it: nothing the service says is kept or shown longer than an excerpt.
 */
export const makeScrub = (secrets: ReadonlyArray<string>) => {
  const redact = makeRedact(secrets)
  return (text: string, max: number = EXCERPT_LENGTH): string => {
    let out = redact(text)
    // Control characters in a body must not reach logs or the terminal.
    out = blankControl(out)
    return out.length > max ? `${out.slice(0, max)}...` : out
  }
}

export type Scrub = ReturnType<typeof makeScrub>

const parseJson = (text: string): Option.Option<unknown> => {
  if (text.trim() === "") return Option.none()
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

const decodeEnvelopeA = Schema.decodeUnknownOption(EnvelopeA)
const decodeEnvelopeB = Schema.decodeUnknownOption(EnvelopeB)
/** A property of a JSON value, or undefined when the value is not an object. */
export const field = (json: unknown, key: string): unknown => (typeof json === "object" && json !== null ? (json as Record<string, unknown>)[key] : undefined)
// Each envelope requires its literal (success: false, error: true): a body without it is not one, and
// is not decoded as one (a failed decode builds its whole error tree, on every successful answer).
const decodeA = (json: unknown) => (field(json, "success") === false ? decodeEnvelopeA(json) : Option.none())
const decodeB = (json: unknown) => (field(json, "error") === true ? decodeEnvelopeB(json) : Option.none())

const statusSpeaks = (status: number) => status === 401 || status === 403 || status >= 500

const fromEnvelopeA = (
  envelope: EnvelopeA,
  endpoint: Endpoint,
  reference: string | undefined,
  scrub: Scrub
): ClientError => {
  const errors = Object.fromEntries(
    Object.entries(envelope.errors).map(([key, messages]) => [key, messages.map((m) => scrub(m))])
  )
  const message = scrub(envelope.message)
  if ("authentication" in errors) return new AuthError({ message })
  if (endpoint === "payout" && "amount" in errors) return new InsufficientBalance({ message, errors })
  if ("reference" in errors) return new NotFound({ message, reference: reference ?? errors.reference.join("; ") })
  return new ValidationError({ message, errors })
}

export interface ClassifyOptions<A> {
  readonly method: "GET" | "POST"
  readonly endpoint: Endpoint
  readonly success: (json: unknown) => Option.Option<A>
  readonly nowMs: number
  readonly scrub: Scrub
  /** The reference looked up, for NotFound. */
  readonly reference?: string
}

export const classify = <A>(
  options: ClassifyOptions<A>,
  answer: Answer
): Either.Either<A, ClientError | Transient> => {
  const { endpoint, method, scrub } = options
  const { status } = answer
  const post = method === "POST"
  if (post && status >= 500) {
    return Either.left(new OutcomeUnknown({ reason: `server answered HTTP ${status} after the request was sent`, status }))
  }
  const retryAfterMs = Option.getOrUndefined(parseRetryAfter(answer.retryAfter, options.nowMs))
  const json = parseJson(answer.body)
  if (Option.isSome(json)) {
    // A 429 refuses the rate, not the request, whatever its envelope says (the errors may be keyed).
    const envelopeA = status === 429 ? Option.none() : decodeA(json.value)
    // An envelope with no keyed errors says nothing more than its status code.
    if (Option.isSome(envelopeA) && !(Object.keys(envelopeA.value.errors).length === 0 && statusSpeaks(status))) {
      return Either.left(fromEnvelopeA(envelopeA.value, endpoint, options.reference, scrub))
    }
    const envelopeB = endpoint === "payin" && status !== 429 ? decodeB(json.value) : Option.none()
    if (Option.isSome(envelopeB)) {
      const reference = envelopeB.value.reference ?? undefined
      return Either.left(new PayinRefused({ message: scrub(envelopeB.value.error_message), reference }))
    }
    const value = options.success(json.value)
    if (Option.isSome(value)) return Either.right(value.value)
  }
  if (status === 429) {
    return Either.left(
      post
        ? new RateLimited({ retryAfterMs })
        : new Transient({ reason: "HTTP 429", status, retryAfterMs, rateLimited: true, notSent: false })
    )
  }
  if (status === 401 || status === 403) return Either.left(new AuthError({ message: `HTTP ${status}` }))
  const excerpt = scrub(answer.body, EXCERPT_LENGTH)
  if (post && status >= 200 && status < 300) {
    // Accepted, but without a reference we can read: the payout may exist.
    return Either.left(new OutcomeUnknown({ reason: `unreadable HTTP ${status} answer: ${excerpt}`, status }))
  }
  if (!post && (status >= 500 || status === 408)) {
    return Either.left(new Transient({ reason: `HTTP ${status}`, status, rateLimited: false, notSent: false }))
  }
  return Either.left(new UnexpectedResponse({ status, excerpt }))
}

// Failures without an HTTP answer. Only errors raised while resolving or connecting prove the request
// never left; anything later (reset, hang up, timeout) may have reached the server.
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

/** An answer longer than its endpoint's cap (Client.ts): reading stopped there, the connection dropped. */
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
