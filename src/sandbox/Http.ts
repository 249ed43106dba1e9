/**
 * Responses of the sandbox: a route's `Answer` (status, JSON text, extra headers) becomes the response.
 * Every refusal of the v1 API is envelope A, except the pay-ins' envelope B.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import type { EnvelopeA } from "../api/Schemas.ts"
import { EnvelopeB } from "../api/Schemas.ts"
import { Reference } from "../domain/Ids.ts"

export type FieldErrors = Record<string, Array<string>>

export interface Answer {
  readonly status: number
  /** The JSON body, already encoded. */
  readonly json: string
  readonly headers?: Readonly<Record<string, string>>
}

/** A JSON text of a shape the spec declares (its schema's encoded side), written without a schema pass. */
export const jsonOf = <A>(encoded: A): string => JSON.stringify(encoded)

export const answerA = (status: number, message: string, errors: FieldErrors = {}, headers?: Record<string, string>): Answer => ({
  status,
  json: jsonOf<typeof EnvelopeA.Encoded>({ success: false, message, errors }),
  ...(headers === undefined ? {} : { headers })
})

export const answerOk = (json: string): Answer => ({ status: 200, json })

export const invalidAnswer = (errors: FieldErrors) => answerA(422, "The given data was invalid.", errors)

export const toResponse = (answer: Answer): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(answer.json, { status: answer.status, contentType: "application/json", headers: answer.headers ?? {} })

export const envelopeA = (status: number, message: string, errors: FieldErrors = {}, headers: Record<string, string> = {}) =>
  toResponse(answerA(status, message, errors, headers))

/** Envelope B (pay-ins): a refusal, with the reference when a transaction exists. */
export const envelopeB = (status: number, message: string, reference: string | null = null) =>
  HttpServerResponse.unsafeJson(
    Schema.encodeSync(EnvelopeB)(new EnvelopeB({ error: true, reference: reference === null ? null : Reference.make(reference), status: "failed", error_message: message })),
    { status }
  )

export const invalid = (errors: FieldErrors) => toResponse(invalidAnswer(errors))

export const ok = (body: unknown) => HttpServerResponse.unsafeJson(body, { status: 200 })

export type JsonObject = Record<string, unknown>

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A request body's text as a JSON object, or the 422 answer refusing it. */
export const parseJsonObject = (text: string): Either.Either<JsonObject, Answer> => {
  const refused = () => Either.left(invalidAnswer({ body: ["The request body must be a JSON object."] }))
  if (text.trim() === "") return refused()
  const parsed = Either.try((): unknown => JSON.parse(text))
  return Either.isRight(parsed) && isObject(parsed.right) ? Either.right(parsed.right) : refused()
}

/** The request body as a JSON object, or the 422 answer refusing it. */
export const jsonBody: Effect.Effect<
  Either.Either<JsonObject, HttpServerResponse.HttpServerResponse>,
  never,
  HttpServerRequest.HttpServerRequest
> = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* Effect.orElseSucceed(request.text, () => "")
  return Either.mapLeft(parseJsonObject(text), toResponse)
})

export const searchParams = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const url = new URL(request.url, "http://sandbox.invalid")
  return url.searchParams
})
