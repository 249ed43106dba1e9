// The client's answers read whole and bounded: how long a record or a listing page may be, and the
// read that refuses a longer one without buffering it.
import type { HttpClientError, HttpClientResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { TooLarge } from "./Classify.ts"

/** The longest answer read for one record (a status, a payout's answer, the wallets): far above any real one. */
export const RECORD_MAX_BYTES = 256 * 1024
/** The longest listing page read: 100 transactions are about 50 KB. */
export const PAGE_MAX_BYTES = 8 * 1024 * 1024

interface Answer {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly date: string | undefined
  /** X-Sandbox-Clock: how a sandbox's virtual time runs (ServiceClock.ts decides whether to believe it). */
  readonly clock: string | undefined
  readonly body: string
}

const utf8 = new TextDecoder()

/** The declared length, when the answer has a plain one. */
const declaredLength = (value: string | undefined): number | undefined =>
  value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined

/**
 * The whole answer, no longer than `maxBytes`. A declared length bounds the body by HTTP framing, so
 * it is read at once; without one the body is read as a stream and failing the fold past the cap ends
 * the stream, which aborts the request and drops the connection (nothing past the cap is buffered).
 */
export const readAnswer = (response: HttpClientResponse.HttpClientResponse, maxBytes: number): Effect.Effect<Answer, HttpClientError.ResponseError | TooLarge> => {
  const headers = response.headers
  const declared = declaredLength(headers["content-length"])
  const tooLong = declared !== undefined && declared > maxBytes
  const answer = (body: string): Answer => ({ status: response.status, retryAfter: headers["retry-after"], date: headers["date"], clock: headers["x-sandbox-clock"], body })
  if (declared !== undefined && !tooLong) return Effect.map(response.text, answer)
  return Stream.runFoldEffect(response.stream, { size: 0, parts: new Array<Uint8Array>() }, (read, bytes) => {
    const size = read.size + bytes.length
    if (tooLong || size > maxBytes) return Effect.fail(new TooLarge(response.status, maxBytes, tooLong ? declared : undefined))
    read.parts.push(bytes)
    return Effect.succeed({ size, parts: read.parts })
  }).pipe(
    Effect.flatMap((read) => (tooLong ? Effect.fail(new TooLarge(response.status, maxBytes, declared)) : Effect.succeed(answer(utf8.decode(Buffer.concat(read.parts)))))),
    // fetch gives no stream for an answer without a body: that is an empty body, as `text` reads it.
    Effect.catchIf((e) => e._tag === "ResponseError" && e.reason === "EmptyBody", () => (tooLong ? Effect.fail(new TooLarge(response.status, maxBytes, declared)) : Effect.succeed(answer(""))))
  )
}
