/**
 * `payouts console`: wiring only. The console (src/console) over the store every command finds
 * (StoreLocation.ts), the account asked of the service, the Approvals page's job folder and policy,
 * and the listen address: loopback, or beyond it only over TLS or behind a proxy that says https.
 */
import { NodeContext } from "@effect/platform-node"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { readFileSync } from "node:fs"
import { ConsoleAccount } from "../../console/Contract.ts"
import { SignInThrottle } from "../../console/Auth.ts"
import { consolePages } from "../../console/Pages.ts"
import { consoleApp, serveConsole } from "../../console/Server.ts"
import { ConsoleSettings } from "../../console/Settings.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { metricsRoute } from "../../observe/Prometheus.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import { approvalPolicyOf } from "../ApprovalPolicy.ts"
import type { consoleCommand } from "../commands/Console.ts"
import { clientLayer } from "../Connect.ts"
import { JobNotesLive } from "../JobNoteText.ts"
import { UsageError } from "../Errors.ts"
import type { Parsed } from "../Lazy.ts"
import { accountOf } from "../Jobs.ts"
import { isLoopbackHost, parseHostPort } from "../Listen.ts"
import { resolveConnection, resolveRedirects } from "../Settings.ts"
import { announceStore, storeFor } from "../StoreLocation.ts"
import { openStore } from "../StoreOpen.ts"

type Args = Parsed<typeof consoleCommand>

const readPem = (flag: string, path: string) =>
  Effect.try({ try: () => readFileSync(path, "utf8"), catch: (e) => new UsageError({ reason: `${flag} ${path} cannot be read: ${String(e)}` }) })

/** Where and how to listen: beyond loopback only with a certificate and key, or behind a proxy that serves HTTPS. */
const listeningOf = (args: Args) =>
  Effect.gen(function* () {
    const listen = yield* parseHostPort("--listen", args.listen)
    if (Option.isSome(args.tlsCert) !== Option.isSome(args.tlsKey)) return yield* new UsageError({ reason: "--tls-cert and --tls-key go together: give both" })
    if (Option.isSome(args.tlsCert) && args.behindProxy) return yield* new UsageError({ reason: "choose one: --tls-cert/--tls-key (this console serves HTTPS) or --behind-proxy (a proxy does)" })
    const tls = Option.isSome(args.tlsCert) && Option.isSome(args.tlsKey)
      ? Option.some({ cert: yield* readPem("--tls-cert", args.tlsCert.value), key: yield* readPem("--tls-key", args.tlsKey.value) })
      : Option.none()
    const loopback = !listen.everyInterface && isLoopbackHost(listen.host)
    if (!loopback && Option.isNone(tls) && !args.behindProxy) {
      return yield* new UsageError({
        reason: `--listen ${args.listen} is reachable from other machines, and a password must not cross a network in clear: ` +
          "give --tls-cert FILE --tls-key FILE (the console serves HTTPS), or --behind-proxy (a proxy serves HTTPS and says so with X-Forwarded-Proto: https), " +
          "or listen on this machine only (--listen 127.0.0.1:PORT)"
      })
    }
    const notice = loopback
      ? Option.none<string>()
      : Option.some(Option.isSome(tls)
        ? `Listening beyond this machine over HTTPS (--tls-cert).`
        : "Listening beyond this machine behind a proxy (--behind-proxy): requests it did not forward with X-Forwarded-Proto: https are refused (403).")
    return { listen: { host: listen.host, port: listen.port, tls }, secure: Option.isSome(tls) || args.behindProxy, notice }
  })

export const runConsole = (args: Args) =>
  Effect.gen(function* () {
    const listening = yield* listeningOf(args)
    const policy = yield* approvalPolicyOf(args)
    const connection = yield* resolveConnection(args.connection)
    const redirects = yield* resolveRedirects(args.redirects)
    const location = yield* storeFor(args.state, Option.getOrUndefined(args.jobs))
    yield* announceStore(location)
    const accountId = yield* accountOf(args.connection)
    const settings = Layer.succeed(ConsoleSettings, {
      jobs: Option.map(args.jobs, jobFolder),
      policy,
      idleTimeout: Duration.max(args.idleTimeout, Duration.seconds(10)),
      secure: listening.secure
    })
    const account = Layer.succeed(ConsoleAccount, {
      accountId,
      urls: {
        callbackUrl: Option.getOrUndefined(redirects.callbackUrl),
        returnUrl: Option.getOrElse(redirects.returnUrl, () => DEFAULT_RUN_SETTINGS.returnUrl),
        cancelUrl: Option.getOrElse(redirects.cancelUrl, () => DEFAULT_RUN_SETTINGS.cancelUrl)
      }
    })
    const app = consoleApp(consolePages, { behindProxy: args.behindProxy, secure: listening.secure }, Option.some(metricsRoute(accountId)))
    yield* Effect.scoped(
      Effect.gen(function* () {
        const url = yield* serveConsole(app, listening.listen)
        if (Option.isSome(listening.notice)) yield* Console.error(listening.notice.value)
        yield* Console.log(`Console: ${url}`)
        return yield* Effect.never
      })
    ).pipe(
      Effect.provide(Layer.mergeAll(settings, account, SignInThrottle.Default, clientLayer(connection), openStore(location), NodeContext.layer, JobNotesLive))
    )
  })
