/**
 * DESIGN.md section 3: an HTTP answer is classified by its body first, the status code only when
 * the body says nothing. Pure, so the rules are testable without a socket.
 */
import { Data, Either, Option, Schema } from "effect"
import {
  AuthError,
  type ClientError,
  InsufficientBalance,
  NotFound,
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
