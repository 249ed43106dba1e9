/**
 * The console's HTTP server (DESIGN 13). In front of every page: behind a proxy, only what it forwards
 * over HTTPS; then the sign-in, the assets and /metrics, which need no session; every other request
 * needs one (a page asked for without one is sent to the sign-in, anything else answered 401), and a
 * POST the session's CSRF token, checked before its route runs. Pages are HttpRouters needing
 * `SignedIn`; `consoleApp` takes them all, so other parts of the console mount theirs beside these.
 */
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse, UrlParams } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Cause, Effect, Option, Predicate, Schema } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import { CONSOLE_CSS } from "./assets/Css.ts"
import { CONSOLE_JS } from "./assets/Script.ts"
import { postSignIn, postSignOut, signInPage } from "./Auth.ts"
import { escapeHtml, frame, page, SignedIn } from "./Contract.ts"
import { ROLES } from "./Roles.ts"
import { currentSession, sameSecret } from "./Session.ts"

export interface ServerOptions {
  /** Answer only requests a proxy forwarded over HTTPS (`X-Forwarded-Proto: https`). */
  readonly behindProxy: boolean
  /** Served over HTTPS, here or at the proxy: browsers are told to keep to it. */
  readonly secure: boolean
}

const isRole = Schema.is(Schema.Literal(...ROLES))

const asset = (body: string, contentType: string) =>
  HttpServerResponse.text(body, { contentType, headers: { "cache-control": "no-cache" } })

const isMutation = (method: string) => method !== "GET" && method !== "HEAD"

/** No session: a person's browser is sent to sign in; a script's fetch or a form's POST is told 401. */
const noSession = (request: HttpServerRequest.HttpServerRequest) =>
  !isMutation(request.method) && (request.headers.accept ?? "").includes("text/html")
    ? HttpServerResponse.redirect("/sign-in", { status: 303 })
    : HttpServerResponse.text("Sign in first: this console answers only a signed-in person.", { status: 401 })

const refusal = (status: number, title: string, text: string) =>
  Effect.map(page(title, `<p role="alert" class="refused">${escapeHtml(text)}</p><p><a href="/batches">Batches</a></p>`), (r) => HttpServerResponse.setStatus(r, status))

/** The pages behind a session, with the person provided and their refusals answered as pages. */
const signedIn = <E, R>(pages: HttpRouter.HttpRouter<E, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const session = yield* currentSession
    if (Option.isNone(session) || !isRole(session.value.role)) return noSession(request)
    const who = { name: session.value.name, role: session.value.role, csrf: session.value.csrf }
    const answer = Effect.gen(function* () {
      if (isMutation(request.method)) {
        // Read once here and kept by the request: the route reads the same body again.
        const body = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
        const csrf = UrlParams.getFirst(body, "csrf")
        if (Option.isNone(csrf) || !sameSecret(csrf.value, who.csrf)) {
          yield* Effect.logWarning("console: a form without its session's CSRF token was refused").pipe(Effect.annotateLogs({ name: who.name, path: request.url }))
          return yield* refusal(403, "Form refused", "This form did not carry this session's token (an old page, or another site's form): nothing was done. Open the page again and retry.")
        }
      }
      return yield* pages.pipe(
        Effect.catchIf(Predicate.isTagged("Forbidden"), () => refusal(403, "Not allowed", `Your role (${who.role}) does not allow this.`)),
        Effect.catchIf(Predicate.or(Predicate.isTagged("RouteNotFound"), Predicate.isTagged("ParseError")), () => refusal(404, "Not found", "There is no such page."))
      )
    })
    return yield* Effect.provideService(answer, SignedIn, who)
  })

/** The security headers of every answer: nothing from elsewhere, no framing, no sniffing, no caching of pages. */
const hardened = (secure: boolean) => (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, {
    // A page may bring a stricter or its own policy (a run's report has its style inline).
    "content-security-policy": response.headers["content-security-policy"] ?? "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    ...(response.headers["cache-control"] === undefined ? { "cache-control": "no-store" } : {}),
    ...(secure ? { "strict-transport-security": "max-age=31536000" } : {})
  })

/**
 * The whole console: `pages` behind a session, `metrics` (GET /metrics, for Prometheus, which scrapes
 * without cookies) before it. A failure nobody planned is logged and answered 500 without its details.
 */
export const consoleApp = <E, R, EM, RM>(
  pages: HttpRouter.HttpRouter<E, R>,
  options: ServerOptions,
  metrics: Option.Option<Effect.Effect<HttpServerResponse.HttpServerResponse, EM, RM>> = Option.none()
) => {
  const metricsHandler: Effect.Effect<HttpServerResponse.HttpServerResponse, EM, RM> = Option.getOrElse(metrics, () =>
    Effect.succeed(HttpServerResponse.text("No metrics are served here.", { status: 404 })))
  const open = HttpRouter.empty.pipe(
    HttpRouter.get("/", HttpServerResponse.redirect("/batches", { status: 303 })),
    HttpRouter.get("/sign-in", Effect.succeed(signInPage)),
    HttpRouter.post("/sign-in", postSignIn(options.behindProxy)),
    HttpRouter.get("/assets/console.css", Effect.succeed(asset(CONSOLE_CSS, "text/css; charset=utf-8"))),
    HttpRouter.get("/assets/console.js", Effect.succeed(asset(CONSOLE_JS, "text/javascript; charset=utf-8"))),
    HttpRouter.get("/metrics", metricsHandler)
  )
  const closed = HttpRouter.post(pages, "/sign-out", postSignOut)
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const forwarded = (request.headers["x-forwarded-proto"] ?? "").split(",")[0].trim().toLowerCase()
    if (options.behindProxy && forwarded !== "https") {
      return HttpServerResponse.text("This console answers only requests its proxy forwards over HTTPS (X-Forwarded-Proto: https).", { status: 403 })
    }
    return yield* open.pipe(Effect.catchIf(Predicate.isTagged("RouteNotFound"), () => signedIn(closed)))
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logError("console: a request failed", Cause.squash(cause)),
        HttpServerResponse.setStatus(HttpServerResponse.html(frame("Error", "", `<h1>Something went wrong</h1><p role="alert">This request could not be answered; the console's log says why. <a href="/batches">Batches</a></p>`)), 500)
      )),
    Effect.map(hardened(options.secure))
  )
}

export interface Listening {
  readonly host: string
  readonly port: number
  readonly tls: Option.Option<{ readonly cert: string; readonly key: string }>
}

/** Serves `app` on `listen` (HTTPS with its certificate and key when given) for the scope; the URL it answers on. */
export const serveConsole = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>, listen: Listening) =>
  Effect.gen(function* () {
    const server = yield* NodeHttpServer.make(
      (): Http.Server => Option.match(listen.tls, { onNone: () => Http.createServer(), onSome: (tls) => Https.createServer({ cert: tls.cert, key: tls.key }) }),
      { host: listen.host, port: listen.port }
    )
    yield* HttpServer.serveEffect()(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
    const port = server.address._tag === "TcpAddress" ? server.address.port : listen.port
    const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host === "" ? "0.0.0.0" : listen.host
    return `${Option.isSome(listen.tls) ? "https" : "http"}://${host}:${port}/`
  })
