/**
 * Standard Webhooks signing (standardwebhooks.com): `webhook-signature` is `v1,` followed by the
 * base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed with the secret's bytes. The secret is
 * written `whsec_` + base64, as the receivers' libraries expect it.
 */
import { Data, Either, Redacted } from "effect"
import { createHmac } from "node:crypto"

const PREFIX = "whsec_"
// The spec's range for a secret's length; its own test vector's secret is 24 bytes.
const MIN_BYTES = 24
const MAX_BYTES = 64
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** Why a signing secret cannot be used; never quotes the secret. */
export class SecretError extends Data.TaggedError("SecretError")<{ readonly reason: string }> {}

/** The key bytes of a `whsec_...` secret (the prefix may be left out, as the spec's libraries allow). */
export const parseSecret = (secret: Redacted.Redacted<string>): Either.Either<Redacted.Redacted<Buffer>, SecretError> => {
  const text = Redacted.value(secret).trim()
  const encoded = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : text
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded)) {
    return Either.left(new SecretError({ reason: "it is not whsec_ followed by base64" }))
  }
  const key = Buffer.from(encoded, "base64")
  if (key.length < MIN_BYTES || key.length > MAX_BYTES) {
    return Either.left(new SecretError({ reason: `its key is ${key.length} bytes; it must be ${MIN_BYTES} to ${MAX_BYTES}` }))
  }
  return Either.right(Redacted.make(key))
}

/** The `webhook-signature` header of one delivery attempt. */
export const signature = (key: Redacted.Redacted<Buffer>, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac("sha256", Redacted.value(key)).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`

/** The three Standard Webhooks headers of one attempt (a retry signs again with its own timestamp). */
export const signedHeaders = (key: Redacted.Redacted<Buffer>, id: string, timestampSeconds: number, body: string) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestampSeconds),
  "webhook-signature": signature(key, id, timestampSeconds, body)
})
