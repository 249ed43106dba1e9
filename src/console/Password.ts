/**
 * Passwords of the console's people (DESIGN 13): scrypt with a random salt, the parameters kept with
 * the hash (`scrypt$N$r$p$salt$hash`, base64url) so they can be raised later without breaking the
 * hashes already stored; compared in constant time.
 */
import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/** 2^15 x 8: about 32 MiB and 50-100 ms a try, what OWASP asks of scrypt; a guess costs as much. */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const
const KEY_BYTES = 32
const SALT_BYTES = 16

export const MIN_PASSWORD = 10
export const MAX_PASSWORD = 1024

/** Why a new password is refused; undefined when it may be used. */
export const passwordProblem = (password: string): string | undefined =>
  password.length < MIN_PASSWORD
    ? `a password needs at least ${MIN_PASSWORD} characters`
    : password.length > MAX_PASSWORD
      ? `a password is at most ${MAX_PASSWORD} characters`
      : undefined

interface Params {
  readonly N: number
  readonly r: number
  readonly p: number
}

const derive = (password: string, salt: Buffer, params: Params) =>
  Effect.async<Buffer>((resume) => {
    // maxmem: node's default (32 MiB) is exactly what N=2^15, r=8 needs, and scrypt refuses that.
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { ...params, maxmem: 256 * params.N * params.r }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.die(error)))
  })

export const hashPassword = Effect.fn("Password.hash")(function* (password: string) {
  const salt = randomBytes(SALT_BYTES)
  const key = yield* derive(password, salt, PARAMS)
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
})

const parse = (stored: string) => {
  const [kind, n, r, p, salt, key] = stored.split("$")
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  const sane = kind === "scrypt" && [params.N, params.r, params.p].every((x) => Number.isSafeInteger(x) && x > 0) && salt !== undefined && key !== undefined
  return sane ? { params, salt: Buffer.from(salt, "base64url"), key: Buffer.from(key, "base64url") } : undefined
}

/**
 * Whether `password` is the one `stored` was made from. Without a stored hash (no such person) a hash
 * is derived all the same, so the answer takes as long for a name that does not exist.
 */
export const checkPassword = Effect.fn("Password.check")(function* (password: string, stored: string | undefined) {
  const parsed = stored === undefined ? undefined : parse(stored)
  if (parsed === undefined) {
    yield* derive(password, randomBytes(SALT_BYTES), PARAMS)
    return false
  }
  const key = yield* derive(password, parsed.salt, parsed.params)
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key)
})
