/** domain/Secrets.ts: a secret is found in every spelling a service or a driver may echo it. */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { makeRedact, maskUrlPasswords } from "../../src/domain/Secrets.ts"

const KEY = "pk_test_Key/4242+abc"
const SECRET = "sk/live_S3cr3t+Value=9Z"
const redact = makeRedact([KEY, SECRET])

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64")
const urlSafe = (text: string) => text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

/** Each spelling of a value a careless service has been seen to write. */
const spellings = (s: string): Record<string, string> => ({
  plain: s,
  upper: s.toUpperCase(),
  lower: s.toLowerCase(),
  json: JSON.stringify(s).slice(1, -1).replace(/\//g, "\\/"),
  jsonUnicode: [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  jsonTwice: JSON.stringify(JSON.stringify(s).replace(/\//g, "\\/")).slice(1, -1),
  url: encodeURIComponent(s),
  urlLower: encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  urlAll: [...Buffer.from(s)].map((b) => `%${b.toString(16)}`).join(""),
  base64: b64(s),
  base64Url: urlSafe(b64(s)),
  basic: `Basic ${b64(`${KEY}:${SECRET}`)}`,
  basicUrlSafe: urlSafe(b64(`${KEY}:${SECRET}`)),
  bearer: `Bearer ${s}`,
  base64Json: JSON.stringify(b64(`x${s}`)).replace(/\//g, "\\/")
})

describe("Secrets.makeRedact", () => {
  for (const [name, spelled] of Object.entries({ ...spellings(SECRET), ...Object.fromEntries(Object.entries(spellings(KEY)).map(([k, v]) => [`key ${k}`, v])) })) {
    it(`finds the secret written ${name}`, () => {
      const out = redact(`{"message":"rejected ${spelled} here"}`)
      expect(out).toContain("[redacted]")
      for (const leak of Object.values(spellings(SECRET))) if (!leak.startsWith("Bearer") && !leak.startsWith("Basic")) expect(out).not.toContain(leak)
      expect(out.toLowerCase()).not.toContain("s3cr3t")
    })
  }

  it("property: any secret at any offset of a base64 text, standard or url-safe, is found", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 40 }), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), (secret, before, after) => {
        const encoded = b64(`${before}${secret}${after}`)
        for (const text of [encoded, urlSafe(encoded), secret, secret.toUpperCase(), encodeURIComponent(secret)]) {
          const out = makeRedact([secret])(text)
          expect(out).toContain("[redacted]")
        }
      })
    )
  })

  it("leaves other text alone", () => {
    expect(redact("Payout initiated successfully for +237 6 77 00 00 01")).toBe("Payout initiated successfully for +237 6 77 00 00 01")
    expect(makeRedact(["abc"])("abc")).toBe("abc")
  })
})

describe("Secrets.maskUrlPasswords", () => {
  it("keeps the user and hides the password of every URL in a text", () => {
    expect(maskUrlPasswords("State store: postgres://payouts:PASSWORD@db.internal:5432/payouts?schema=a")).toBe(
      "State store: postgres://payouts:***@db.internal:5432/payouts?schema=a"
    )
    expect(maskUrlPasswords(`connect failed: "postgresql://u:p%40ss@h/db" and https://x:y@z/`)).toBe(`connect failed: "postgresql://u:***@h/db" and https://x:***@z/`)
    expect(maskUrlPasswords("postgres://user@host/db")).toBe("postgres://user@host/db")
  })
})
