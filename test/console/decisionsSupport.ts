/**
 * Harness for the console's decision pages: their routes served on a real port (0), the person
 * signed in named by the request's `x-test-user` and `x-test-role` headers (standing in for the
 * server's sessions), `Forbidden` answered 403 as the server answers it, refusals worded by the CLI's
 * JobNotesLive as `payouts console` provides it; requests made with fetch.
 */
import { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Predicate } from "effect"
import { createServer } from "node:http"
import { JobNotesLive } from "../../src/cli/JobNoteText.ts"
import type { SignedIn } from "../../src/console/Contract.ts"
import type { Role } from "../../src/console/Roles.ts"

export const CSRF = "test-csrf"

/** Serves `routes` (given the person signed in, provided the rest by the caller) on port 0; its base URL. */
export const serveRoutes = <E>(routes: (who: SignedIn["Type"]) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest>) =>
  Effect.gen(function* () {
    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const role = (request.headers["x-test-role"] ?? "viewer") as Role
      return yield* routes({ name: request.headers["x-test-user"] ?? "nobody", role, csrf: CSRF })
    }).pipe(
      Effect.catchIf((e) => Predicate.isTagged(e, "Forbidden"), () => HttpServerResponse.text("forbidden", { status: 403 })),
      Effect.catchIf((e) => Predicate.isTagged(e, "RouteNotFound"), () => HttpServerResponse.text("not found", { status: 404 })),
      Effect.provide(JobNotesLive)
    )
    const server = yield* Layer.build(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
    yield* HttpServer.serveEffect()(app).pipe(Effect.provide(server))
    const address = Context.get(server, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  })

export interface Reply {
  readonly status: number
  readonly body: string
}

/** GET or POST (a form, url-encoded) as `name` with `role`. */
export const request = (base: string, path: string, who: { readonly name: string; readonly role: Role }, form?: Readonly<Record<string, string>>) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(`${base}${path}`, {
      method: form === undefined ? "GET" : "POST",
      headers: { "x-test-user": who.name, "x-test-role": who.role, ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
      ...(form === undefined ? {} : { body: new URLSearchParams({ csrf: CSRF, ...form }).toString() }),
      redirect: "manual"
    })
    return { status: response.status, body: await response.text() }
  })

/** Text of a page without its tags, whitespace folded: what a person reads. */
export const textOf = (html: string) =>
  html.replace(/<[^>]*>/g, " ").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&").replace(/\s+/g, " ")
