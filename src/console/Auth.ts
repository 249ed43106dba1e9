/**
 * Signing in and out of the console (DESIGN 13). A failed sign-in is logged (name and address, never
 * the password) and the next try of that name, or from that address, waits longer each time: a guess
 * costs seconds, not the scrypt's 100 ms. A success clears the name's count, not the address's.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Duration, Effect, HashMap, Option, Ref, Schema } from "effect"
import { ConsoleUsers, personKey } from "../store/Sql/Users.ts"
import { escapeHtml, frame } from "./Contract.ts"
import { ROLES } from "./Roles.ts"
import { checkPassword } from "./Password.ts"
import { closeSession, openSession, withoutSessionCookie, withSessionCookie } from "./Session.ts"

/** Failures are forgotten after this long without another. */
const FORGET_AFTER_MS = 15 * 60_000
const FIRST_DELAY_MS = 500
const MAX_DELAY_MS = 16_000

interface Failures {
  readonly count: number
  readonly lastAt: number
}

export const delayAfter = (failures: number) => (failures === 0 ? 0 : Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (failures - 1)))

/** Failed sign-ins by name and by address, kept by the console while it runs. */
export class SignInThrottle extends Effect.Service<SignInThrottle>()("console/SignInThrottle", {
  effect: Effect.gen(function* () {
    const failures = yield* Ref.make(HashMap.empty<string, Failures>())
    const countOf = (map: HashMap.HashMap<string, Failures>, key: string, now: number) =>
      Option.match(HashMap.get(map, key), { onNone: () => 0, onSome: (f) => (now - f.lastAt > FORGET_AFTER_MS ? 0 : f.count) })
    return {
      /** How long a try under these keys waits first. */
      delay: (keys: ReadonlyArray<string>, now: number) =>
        Effect.map(Ref.get(failures), (map) => Duration.millis(Math.max(...keys.map((k) => delayAfter(countOf(map, k, now)))))),
      failed: (keys: ReadonlyArray<string>, now: number) =>
        Ref.update(failures, (map) => {
          const kept = HashMap.filter(map, (f) => now - f.lastAt <= FORGET_AFTER_MS)
          return keys.reduce((m, k) => HashMap.set(m, k, { count: countOf(m, k, now) + 1, lastAt: now }), kept)
        }),
      succeeded: (key: string) => Ref.update(failures, HashMap.remove(key))
    }
  })
}) {}

const SignInForm = Schema.Struct({
  name: Schema.String.pipe(Schema.maxLength(100)),
  password: Schema.String.pipe(Schema.maxLength(1024))
})

const isRole = Schema.is(Schema.Literal(...ROLES))

/** The session of `name` when `password` is theirs; none otherwise (after the wait their failures earned). */
export const signIn = Effect.fn("Console.signIn")(function* (name: string, password: string, address: string) {
  const throttle = yield* SignInThrottle
  const keys = [`name:${personKey(name)}`, `address:${address}`]
  yield* Effect.sleep(yield* throttle.delay(keys, yield* Clock.currentTimeMillis))
  const user = yield* (yield* ConsoleUsers).findUser(name)
  const matches = yield* checkPassword(password, Option.getOrUndefined(Option.map(user, (u) => u.passwordHash)))
  if (!matches || Option.isNone(user) || !isRole(user.value.role)) {
    yield* throttle.failed(keys, yield* Clock.currentTimeMillis)
    yield* Effect.logWarning("console: sign-in refused").pipe(Effect.annotateLogs({ name: name.slice(0, 100), address }))
    return Option.none()
  }
  yield* throttle.succeeded(keys[0])
  yield* Effect.logInfo("console: signed in").pipe(Effect.annotateLogs({ name: user.value.name, address }))
  return Option.some(yield* openSession(user.value.name))
})

const signInBody = (refused: boolean, name: string) => `<h1>Sign in</h1>
${refused ? `<p role="alert" class="refused" id="refused">Wrong name or password.</p>` : ""}
<form method="post" action="/sign-in" class="sign-in">
<p><label for="name">Name</label> <input id="name" name="name" type="text" autocomplete="username" required maxlength="100" value="${escapeHtml(name)}"${refused ? ` aria-describedby="refused"` : " autofocus"}></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${refused ? " autofocus" : ""}></p>
<p><button type="submit">Sign in</button></p>
</form>`

export const signInPage = HttpServerResponse.html(frame("Sign in", "", signInBody(false, "")))

/**
 * The address a failed sign-in is counted and logged under. Behind a proxy, the last address of
 * X-Forwarded-For: the one the proxy added (those before it are whatever the client sent).
 */
const addressOf = (request: HttpServerRequest.HttpServerRequest, behindProxy: boolean) => {
  const forwarded = behindProxy ? request.headers["x-forwarded-for"]?.split(",").at(-1)?.trim() || undefined : undefined
  return forwarded ?? Option.getOrElse(request.remoteAddress, () => "unknown")
}

export const postSignIn = (behindProxy: boolean) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const form = yield* HttpServerRequest.schemaBodyUrlParams(SignInForm).pipe(Effect.orElseSucceed(() => ({ name: "", password: "" })))
    const session = yield* signIn(form.name, form.password, addressOf(request, behindProxy))
    if (Option.isNone(session)) return HttpServerResponse.setStatus(HttpServerResponse.html(frame("Sign in", "", signInBody(true, form.name))), 401)
    return yield* withSessionCookie(HttpServerResponse.redirect("/batches", { status: 303 }), session.value.id)
  })

export const postSignOut = Effect.zipRight(closeSession, withoutSessionCookie(HttpServerResponse.redirect("/sign-in", { status: 303 })))
