/**
 * The whole console for tests: the server the command serves (consoleApp over every page, sessions,
 * CSRF) on a real port (0), over a real SQLite store in a temp dir and a sandbox for the account;
 * people added as `payouts users add` adds them; requests made with fetch, a cookie kept per person.
 */
import { NodeContext } from "@effect/platform-node"
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { join } from "node:path"
import { JobNotesLive } from "../../src/cli/JobNoteText.ts"
import { SignInThrottle } from "../../src/console/Auth.ts"
import { ConsoleAccount } from "../../src/console/Contract.ts"
import type { Role } from "../../src/console/Roles.ts"
import { consolePages } from "../../src/console/Pages.ts"
import { hashPassword } from "../../src/console/Password.ts"
import { consoleApp, serveConsole } from "../../src/console/Server.ts"
import { ConsoleSettings } from "../../src/console/Settings.ts"
import { jobFolder } from "../../src/jobs/JobFolder.ts"
import { metricsRoute } from "../../src/observe/Prometheus.ts"
import { DEFAULT_RUN_SETTINGS } from "../../src/run/RunContext.ts"
import { ConsoleUsers } from "../../src/store/Sql/Users.ts"
import { handlesOf } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { clientLayer } from "../kit/Client.ts"
import { accountOf, type Sandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

export const PASSWORD = "correct horse battery"

export interface ConsoleOptions {
  readonly state?: string
  readonly behindProxy?: boolean
  readonly idleTimeout?: Duration.Duration
  /** The job folder (for the Approvals page and the batches' outputs). */
  readonly jobs?: string
}

/** The console over `sandbox`'s account and a store (a fresh temp file unless given), served for the scope. */
export const startConsole = (sandbox: Sandbox, options: ConsoleOptions = {}) =>
  Effect.gen(function* () {
    const state = options.state ?? join(tempDir("payouts-console-"), "state.db")
    const accountId = accountOf(sandbox)
    const behindProxy = options.behindProxy ?? false
    const context = yield* Layer.build(
      Layer.mergeAll(
        Layer.succeed(ConsoleSettings, { jobs: Option.map(Option.fromNullable(options.jobs), jobFolder), policy: { approvers: [], fourEyes: false, submittedBy: undefined }, idleTimeout: options.idleTimeout ?? Duration.minutes(30), secure: behindProxy }),
        Layer.succeed(ConsoleAccount, { accountId, urls: { callbackUrl: undefined, returnUrl: DEFAULT_RUN_SETTINGS.returnUrl, cancelUrl: DEFAULT_RUN_SETTINGS.cancelUrl } }),
        SignInThrottle.Default,
        clientLayer(sandbox),
        SqliteStateStore.layer({ filename: state }),
        NodeContext.layer,
        JobNotesLive
      )
    )
    const app = consoleApp(consolePages, { behindProxy, secure: behindProxy }, Option.some(metricsRoute(accountId)))
    const served = yield* serveConsole(app, { host: "127.0.0.1", port: 0, tls: Option.none() }).pipe(Effect.provide(context))
    const url = served.replace(/\/$/, "")
    const addUser = (name: string, role: Role, password = PASSWORD) =>
      Effect.gen(function* () {
        const users = Context.get(context, ConsoleUsers)
        yield* users.addUser({ name, role, passwordHash: yield* hashPassword(password), at: yield* Clock.currentTimeMillis })
      }).pipe(Effect.orDie)
    const store = handlesOf(context)
    /** The halt in force in the store, as `payouts halt` reads it. */
    const activeHalt = Effect.orDie(store.account(accountId).activeHalt())
    return { url, state, accountId, context, store, activeHalt, addUser }
  })

export interface Reply {
  readonly status: number
  readonly body: string
  readonly headers: Headers
}

const reply = async (response: Response): Promise<Reply> => ({ status: response.status, body: await response.text(), headers: response.headers })

/** GET or POST (a form) without following redirects; `headers` added to the request. */
export const call = (url: string, init: { readonly form?: Readonly<Record<string, string>>; readonly headers?: Readonly<Record<string, string>> } = {}) =>
  Effect.promise(() =>
    fetch(url, {
      method: init.form === undefined ? "GET" : "POST",
      redirect: "manual",
      headers: { ...(init.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }), ...init.headers },
      ...(init.form === undefined ? {} : { body: new URLSearchParams({ ...init.form }).toString() })
    }).then(reply)
  )

/** The CSRF token a page's forms carry. */
export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

/** Signs `name` in; their cookie, and get/post as them (post adds the CSRF token of their session unless told otherwise). */
export const signIn = (base: string, name: string, password = PASSWORD, headers: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const answer = yield* call(`${base}/sign-in`, { form: { name, password }, headers })
    const cookie = (answer.headers.get("set-cookie") ?? "").split(";")[0]
    const as = (h: Readonly<Record<string, string>> = {}) => ({ cookie, accept: "text/html", ...headers, ...h })
    const get = (path: string) => call(`${base}${path}`, { headers: as() })
    const csrf = answer.status === 303 ? csrfOf((yield* get("/batches")).body) : ""
    /** `token` null: the form is posted without one. */
    const post = (path: string, form: Readonly<Record<string, string>>, token: string | null = csrf) =>
      call(`${base}${path}`, { form: token === null ? form : { csrf: token, ...form }, headers: as() })
    return { answer, cookie, csrf, get, post }
  })

/** Text of a page without its tags, whitespace folded: what a person reads. */
export const textOf = (html: string) =>
  html.replace(/<[^>]*>/g, " ").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&").replace(/\s+/g, " ")
