/** The product's Standard Webhooks signer against the spec's own test vector, and its refusals of unusable secrets. */
import { describe, expect, it } from "@effect/vitest"
import { Either, Redacted } from "effect"
import { parseSecret, signature, signedHeaders } from "../../src/notify/Signature.ts"
import { newSecret, verifies } from "./receiver.ts"

// The test vector of the Standard Webhooks specification (its reference libraries test against it).
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
}

const key = (secret: string) => Either.getOrThrow(parseSecret(Redacted.make(secret)))

describe("Standard Webhooks signature", () => {
  it("signs the spec's test vector as the spec says", () => {
    expect(signature(key(VECTOR.secret), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature)
  })

  it("headers a receiver verifies, and that stop verifying when the body is altered", () => {
    const secret = newSecret()
    const now = Date.now()
    const body = '{"type":"batch.done"}'
    const headers = signedHeaders(key(secret), "msg_1", Math.floor(now / 1000), body)
    expect(verifies(secret, { headers, body }, now)).toBe(true)
    expect(verifies(secret, { headers, body: body.replace("done", "rejected") }, now)).toBe(false)
    expect(verifies(newSecret(), { headers, body }, now)).toBe(false)
  })

  it("refuses a secret that is not whsec_ + base64 of 24 to 64 bytes, never quoting it", () => {
    for (const bad of ["", "whsec_", "whsec_not*base64!", "hunter2hunter2", `whsec_${Buffer.alloc(16, 7).toString("base64")}`, `whsec_${Buffer.alloc(65, 7).toString("base64")}`]) {
      const parsed = parseSecret(Redacted.make(bad))
      expect(Either.isLeft(parsed)).toBe(true)
      if (Either.isLeft(parsed) && bad.length > 6) expect(parsed.left.reason).not.toContain(bad.slice(6))
    }
    // The prefix may be left out, as the spec's libraries allow.
    expect(Either.isRight(parseSecret(Redacted.make(VECTOR.secret.slice(6))))).toBe(true)
  })
})
