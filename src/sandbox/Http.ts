/** Response helpers: every refusal is the spec's envelope A; bodies are decoded by hand. */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { EnvelopeA, EnvelopeB } from "../api/Schemas.ts"
import { Reference } from "../domain/Ids.ts"

export type FieldErrors = Record<string, Array<string>>

export const envelopeA = (status: number, message: string, errors: FieldErrors = {}, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(Schema.encodeSync(EnvelopeA)(new EnvelopeA({ success: false, message, errors })), {
    status,
    headers
  })

/** Envelope B (pay-ins): a refusal, with the reference when a transaction exists. */
export const envelopeB = (status: number, message: string, reference: string | null = null) =>
  HttpServerResponse.unsafeJson(
    Schema.encodeSync(EnvelopeB)(new EnvelopeB({ error: true, reference: reference === null ? null : Reference.make(reference), status: "failed", error_message: message })),
    { status }
  )

export const invalid = (errors: FieldErrors) => envelopeA(422, "The given data was invalid.", errors)

export const ok = (body: unknown) => HttpServerResponse.unsafeJson(body, { status: 200 })

export type JsonObject = Record<string, unknown>

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The request body as a JSON object, or the 422 answer refusing it. */
export const jsonBody: Effect.Effect<
  Either.Either<JsonObject, HttpServerResponse.HttpServerResponse>,
  never,
  HttpServerRequest.HttpServerRequest
> = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* Effect.orElseSucceed(request.text, () => "")
  const refused = () => Either.left(invalid({ body: ["The request body must be a JSON object."] }))
  if (text.trim() === "") return refused()
  const parsed = Either.try((): unknown => JSON.parse(text))
  return Either.isRight(parsed) && isObject(parsed.right) ? Either.right(parsed.right) : refused()
})

export const searchParams = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const url = new URL(request.url, "http://sandbox.invalid")
  return url.searchParams
})
