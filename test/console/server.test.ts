/**
 * The console's door over real HTTP (issue 34): without a session every page sends a browser to the
 * sign-in and answers anything else 401; a failed sign-in is refused, slowed and logged; the cookie is
 * HttpOnly and SameSite=Strict (Secure behind an HTTPS proxy); a form without its session's CSRF token
 * is refused before its route runs; a viewer cannot halt; an idle session ends; behind a proxy only
 * requests it forwarded over HTTPS are answered.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Option } from "effect"
import { LIVE_PART } from "../../src/console/assets/Script.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { call, PASSWORD, signIn, startConsole, textOf } from "./consoleSupport.ts"

const PAGES = ["/batches", "/batches/live", "/batches/0123456789abcdef", "/batches/0123456789abcdef/live", "/approvals", "/attention", "/workers", "/account"]
const FORMS = ["/account/halt", "/account/lift", "/sign-out", "/approvals/0123456789abcdef/approve", "/attention/0123456789abcdef/2"]

describe("console: sign-in, sessions and forms", () => {
  it.scopedLive("without a session: a page sends the browser to Sign in, anything else is 401; the sign-in page is labelled", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const { url } = yield* startConsole(sandbox)
      for (const path of PAGES) {
        const page = yield* call(`${url}${path}`, { headers: { accept: "text/html,application/xhtml+xml" } })
        expect([path, page.status, page.headers.get("location")]).toEqual([path, 303, "/sign-in"])
        const script = yield* call(`${url}${path}`, { headers: { accept: "*/*" } })
        expect([path, script.status]).toEqual([path, 401])
      }
      for (const path of FORMS) expect([path, (yield* call(`${url}${path}`, { form: { reason: "x", csrf: "x" } })).status]).toEqual([path, 401])
      const form = yield* call(`${url}/sign-in`)
      expect(form.status).toBe(200)
      expect(form.body).toMatch(/<label for="name">Name<\/label>/)
      expect(form.body).toMatch(/<label for="password">Password<\/label>/)
      expect(form.body).toMatch(/<button type="submit">Sign in<\/button>/)
      expect(form.headers.get("content-security-policy")).toContain("default-src 'none'")
      expect((yield* call(`${url}/assets/console.css`)).status).toBe(200)
      expect((yield* call(`${url}/metrics`)).body).toContain("payouts_rows")
    }))

  it.scopedLive("a wrong password is refused and the next try waits; the right one opens a session in an HttpOnly, SameSite=Strict cookie", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const { addUser, url } = yield* startConsole(sandbox)
      yield* addUser("olga", "operator")
      const wrong = yield* signIn(url, "olga", "not the password")
      expect(wrong.answer.status).toBe(401)
      expect(textOf(wrong.answer.body)).toContain("Wrong name or password.")
      expect(wrong.answer.headers.get("set-cookie")).toBeNull()
      const nobody = yield* signIn(url, "nobody-here", PASSWORD)
      expect(nobody.answer.status).toBe(401)
      // The name has failed once: its next try waits at least half a second, even with the right password.
      const started = yield* Clock.currentTimeMillis
      const right = yield* signIn(url, "OLGA ", PASSWORD)
      expect((yield* Clock.currentTimeMillis) - started).toBeGreaterThanOrEqual(450)
      expect(right.answer.status).toBe(303)
      expect(right.answer.headers.get("location")).toBe("/batches")
      const cookie = right.answer.headers.get("set-cookie") ?? ""
      expect(cookie).toMatch(/^payouts_session=[A-Za-z0-9_-]{43}; /)
      expect(cookie).toContain("HttpOnly")
      expect(cookie).toContain("SameSite=Strict")
      expect(cookie).not.toContain("Secure")
      const batches = yield* right.get("/batches")
      expect(batches.status).toBe(200)
      expect(textOf(batches.body)).toContain("olga (operator)")
      // Signed out: the cookie no longer opens anything.
      expect((yield* right.post("/sign-out", {})).status).toBe(303)
      expect((yield* right.get("/batches")).status).toBe(303)
    }))

  it.scopedLive("a form without its session's CSRF token is refused (403) before it runs; with it, the operator halts and lifts; a viewer cannot halt", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const { activeHalt, addUser, url } = yield* startConsole(sandbox)
      yield* addUser("olga", "operator")
      yield* addUser("vic", "viewer")
      const olga = yield* signIn(url, "olga")
      expect(olga.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const missing = yield* olga.post("/account/halt", { reason: "no token" }, null)
      expect(missing.status).toBe(403)
      expect(textOf(missing.body)).toContain("nothing was done")
      const forged = yield* olga.post("/account/halt", { reason: "forged" }, "A".repeat(43))
      expect(forged.status).toBe(403)
      expect(yield* activeHalt).toEqual(Option.none())

      const vic = yield* signIn(url, "vic")
      expect(textOf((yield* vic.get("/account")).body)).toContain("Halting and lifting need the operator or admin role.")
      const refused = yield* vic.post("/account/halt", { reason: "viewer tries" })
      expect(refused.status).toBe(403)
      expect(textOf(refused.body)).toContain("Your role (viewer) does not allow this.")
      // Another person's token is not this session's.
      expect((yield* vic.post("/account/halt", { reason: "borrowed token" }, olga.csrf)).status).toBe(403)
      expect(yield* activeHalt).toEqual(Option.none())

      const halted = yield* olga.post("/account/halt", { reason: "wrong file sent" })
      expect(halted.status).toBe(200)
      expect(textOf(halted.body)).toContain("Halted by olga: wrong file sent.")
      const halt = yield* activeHalt
      expect(Option.map(halt, (h) => [h.by, h.reason])).toEqual(Option.some(["olga", "wrong file sent"]))
      expect((yield* olga.post("/account/lift", { reason: "" })).status).toBe(409)
      const lifted = yield* olga.post("/account/lift", { reason: "file replaced" })
      expect(textOf(lifted.body)).toContain("Halt lifted by olga: file replaced.")
      expect(yield* activeHalt).toEqual(Option.none())
    }))

  it.scopedLive("a session idle longer than the timeout is over: a page refreshing itself keeps no one signed in", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const { addUser, url } = yield* startConsole(sandbox, { idleTimeout: Duration.seconds(6) })
      yield* addUser("olga", "operator")
      const olga = yield* signIn(url, "olga")
      expect((yield* olga.get("/workers")).status).toBe(200)
      // Asking keeps a session alive, so nothing a person does is asked until the timeout has passed;
      // the Batches page's own refresh, half-way, is answered and does not count (were it counted, the
      // last question below would come 4.5 s after it, within the 6 s).
      yield* Effect.sleep("3 seconds")
      const refresh = yield* call(`${url}/batches/live`, { headers: { cookie: olga.cookie, accept: LIVE_PART } })
      expect(refresh.status).toBe(200)
      yield* Effect.sleep("4500 millis")
      expect((yield* olga.get("/workers")).status).toBe(303)
    }))

  it.scopedLive("behind a proxy: only requests forwarded over HTTPS are answered, and the cookie is Secure", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const { addUser, url } = yield* startConsole(sandbox, { behindProxy: true })
      yield* addUser("olga", "operator")
      const plain = yield* call(`${url}/sign-in`)
      expect(plain.status).toBe(403)
      expect(plain.body).toContain("X-Forwarded-Proto: https")
      expect((yield* call(`${url}/sign-in`, { headers: { "x-forwarded-proto": "http" } })).status).toBe(403)
      const olga = yield* signIn(url, "olga", PASSWORD, { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.7" })
      expect(olga.answer.status).toBe(303)
      expect(olga.answer.headers.get("set-cookie")).toContain("Secure")
      expect(olga.answer.headers.get("strict-transport-security")).toContain("max-age=")
      expect((yield* olga.get("/batches")).status).toBe(200)
    }))
})
