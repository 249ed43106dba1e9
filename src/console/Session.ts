/**
 * Console sessions (DESIGN 13): a random id in an HttpOnly, SameSite=Strict cookie (Secure when the
 * console is served over HTTPS), kept in the state store by its hash with the person and the CSRF
 * token of their forms. A session idle longer than the timeout is gone: the next request signs in again.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Duration, Effect, Option } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { ConsoleUsers } from "../store/Sql/Users.ts"
import { LIVE_PART } from "./assets/Script.ts"
import { ConsoleSettings } from "./Settings.ts"

export const SESSION_COOKIE = "payouts_session"

const hashOf = (id: string) => createHash("sha256").update(id).digest("hex")

const randomToken = () => randomBytes(32).toString("base64url")

/** Equal strings, compared in constant time (a CSRF token is a secret). */
export const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A new session for `name`: the cookie's value (never stored) and the forms' CSRF token. */
export const openSession = Effect.fn("Session.open")(function* (name: string) {
  const users = yield* ConsoleUsers
  const id = randomToken()
  const csrf = randomToken()
  yield* users.openSession({ idHash: hashOf(id), name, csrf, at: yield* Clock.currentTimeMillis })
  return { id, csrf }
})

const sessionId = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  Option.filter(Option.fromNullable(request.cookies[SESSION_COOKIE]), (id) => /^[A-Za-z0-9_-]{43}$/.test(id)))

/**
 * The session of this request; none without a cookie, or when it is unknown or idle too long. A
 * person's request counts as activity; a page refreshing itself does not, or an open tab would never
 * be idle.
 */
export const currentSession = Effect.gen(function* () {
  const id = yield* sessionId
  if (Option.isNone(id)) return Option.none()
  const { idleTimeout } = yield* ConsoleSettings
  const now = yield* Clock.currentTimeMillis
  const refresh = (yield* HttpServerRequest.HttpServerRequest).headers.accept === LIVE_PART
  return yield* (yield* ConsoleUsers).useSession(hashOf(id.value), now, now - Duration.toMillis(idleTimeout), !refresh)
})

/** Ends this request's session, if it has one. */
export const closeSession = Effect.gen(function* () {
  const id = yield* sessionId
  if (Option.isSome(id)) yield* (yield* ConsoleUsers).closeSession(hashOf(id.value))
})

const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: "strict" as const, secure, path: "/" })

export const withSessionCookie = (response: HttpServerResponse.HttpServerResponse, id: string) =>
  Effect.map(ConsoleSettings, ({ secure }) => HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, id, cookieOptions(secure)))

export const withoutSessionCookie = (response: HttpServerResponse.HttpServerResponse) =>
  Effect.map(ConsoleSettings, ({ secure }) => HttpServerResponse.expireCookie(response, SESSION_COOKIE, cookieOptions(secure)))
