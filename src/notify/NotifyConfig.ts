/**
 * `--notify URL` and its signing secret, `PAYOUTS_NOTIFY_SECRET` (read through Config, so a profile
 * can supply it too). Unsigned notifications are not offered: `--notify` without a usable secret is
 * refused before anything runs.
 */
import { Config, Data, Effect, Either, type Redacted } from "effect"
import { parseSecret } from "./Signature.ts"

export const SECRET_VARIABLE = "PAYOUTS_NOTIFY_SECRET"

export class NotifySetupError extends Data.TaggedError("NotifySetupError")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export interface NotifyTarget {
  readonly url: string
  readonly key: Redacted.Redacted<Buffer>
  /** Scheme and host only: a receiver's path often carries a token of its own, so logs never show it. */
  readonly where: string
}

const HOW = `set ${SECRET_VARIABLE} to whsec_ followed by the base64 of 24 to 64 random bytes (e.g. whsec_$(openssl rand -base64 32)) and give the receiver the same secret`

/** The receiver and the key to sign for it; fails with a sentence a person can act on. */
export const notifyTarget = (url: string) =>
  Effect.gen(function* () {
    const parsed = yield* Effect.try({
      try: () => new URL(url.trim()),
      catch: () => new NotifySetupError({ reason: `--notify: "${url.slice(0, 100)}" is not a URL` })
    })
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      return yield* new NotifySetupError({ reason: `--notify: ${parsed.protocol} is not http: or https:` })
    }
    const secret = yield* Config.option(Config.redacted(SECRET_VARIABLE)).pipe(
      Effect.mapError(() => new NotifySetupError({ reason: `${SECRET_VARIABLE} cannot be read; ${HOW}` }))
    )
    if (secret._tag === "None") {
      return yield* new NotifySetupError({ reason: `--notify needs a signing secret: ${HOW}. Unsigned notifications are not offered.` })
    }
    const key = parseSecret(secret.value)
    if (Either.isLeft(key)) return yield* new NotifySetupError({ reason: `${SECRET_VARIABLE} cannot sign: ${key.left.reason}; ${HOW}` })
    return { url: parsed.href, key: key.right, where: `${parsed.protocol}//${parsed.host}` } satisfies NotifyTarget
  })
