/**
 * The sandbox: a stateful local implementation of the payment API v1 on a real port, with a virtual
 * clock, admin endpoints under /__sandbox, fault injection and a money journal. Closing the scope
 * stops the server, the processor and pending webhooks.
 */
import { HttpMiddleware, HttpRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Clock, Data, Duration, Effect, Either, FiberSet, List, Option, Random, Ref, type Scope } from "effect"
import * as Http from "node:http"
import { isKnownCurrency, parseAmount } from "../domain/Money.ts"
import { CLOCK_HEADER, makeVirtualClock } from "./Clock.ts"
import { SandboxContext } from "./Context.ts"
import { makeFaultState } from "./FaultWorld.ts"
import { parseFaults } from "./FaultGrammar.ts"
import type { FaultSettings } from "./FaultSettings.ts"
import { DEFAULT_FEES, type FeeSchedule } from "./Fees.ts"
import { gate } from "./Gate.ts"
import { adminRoutes } from "./Admin.ts"
import { envelopeA } from "./Http.ts"
import { makeProcessDue, runProcessor } from "./Processor.ts"
import { CLOCK_MOVED, openStore } from "./Persistence.ts"
import { checkoutRoutes } from "./routes/Checkout.ts"
import { payinRoutes } from "./routes/Payins.ts"
import { payoutRoutes } from "./routes/Payouts.ts"
import { statusRoutes } from "./routes/Status.ts"
import { transactionRoutes } from "./routes/Transactions.ts"
import { walletRoutes } from "./routes/Wallets.ts"
import { fund } from "./Settlement.ts"
import { makeState, type SandboxState, touch, type Txn, untouched, type World } from "./State.ts"
import { DEFAULT_WEBHOOK_OPTIONS, makeNotifier } from "./Webhooks.ts"

export interface SandboxOptions {
  /** 0 = ephemeral (default). */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Virtual seconds per real second; default 1. */
  readonly timeScale?: number
  /** Initial funding in MAJOR units per currency, e.g. {XAF: 10_000_000}. */
  readonly fund?: Readonly<Record<string, number>>
  readonly key?: string
  readonly secret?: string
  /** More credentials of the same account, as during a key rotation. */
  readonly extraCredentials?: ReadonlyArray<{ readonly key: string; readonly secret: string }>
  readonly faults?: string
  /** Virtual seconds from acceptance to the outcome of a payout (default 10). */
  readonly payoutDelaySeconds?: number
  /** Share of ordinary numbers whose payout fails (default 0). */
  readonly failureRatio?: number
  readonly fees?: FeeSchedule
  /** First webhook retry delay in real milliseconds (default 500, doubling). */
  readonly webhookRetryMillis?: number
  /** Webhook attempts before giving up (default 8). */
  readonly webhookMaxAttempts?: number
  /** Webhook attempts under way at once, over all receivers (default 128). */
  readonly webhookMaxInFlight?: number
  /** Signs each webhook: X-Sandbox-Signature: sha256=<hex HMAC-SHA256 of the raw body>. Default: unsigned. */
  readonly webhookSecret?: string
  /** Virtual seconds from acceptance to the outcome of an ordinary mobile-money pay-in (default 10). */
  readonly payinDelaySeconds?: number
  /** Virtual seconds from a pay-in's completion to its settlement (default 86400, one day). */
  readonly settlementDelaySeconds?: number
  /** A SQLite file keeping the state (and the clock) across restarts; default: memory only. */
  readonly dataFile?: string
  /** Runs as each payout is committed, before its answer is written (the soak kills its client there). */
  readonly onPayoutCommitted?: (txn: Txn) => Effect.Effect<void>
}

export interface SandboxInfo {
  readonly baseUrl: string
  readonly origin: string
  readonly key: string
  readonly secret: string
}

/** A route the sandbox serves, as its router declares it (`/v1/payment/status/:reference`). */
export interface ServedRoute {
  readonly method: string
  readonly path: string
}

export class SandboxStartError extends Data.TaggedError("SandboxStartError")<{ readonly message: string; readonly cause?: unknown }> {}

export const parseFund = (text: string): Either.Either<Record<string, number>, string> => {
  const result: Record<string, number> = {}
  for (const item of text.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const [currency, amount, ...rest] = item.split("=").map((s) => s.trim())
    if (amount === undefined || rest.length > 0) return Either.left(`invalid --fund "${item}": expected CURRENCY=AMOUNT, e.g. XAF=5000000`)
    if (!isKnownCurrency(currency)) return Either.left(`invalid --fund "${item}": unknown currency "${currency}"`)
    const minor = parseAmount(amount, currency)
    if (Either.isLeft(minor)) return Either.left(`invalid --fund "${item}": ${minor.left}`)
    result[currency] = Number(amount)
  }
  return Either.right(result)
}

const startError = (message: string) => new SandboxStartError({ message })

interface Checked {
  readonly faults: FaultSettings
  readonly funding: ReadonlyArray<readonly [string, number]>
}

const checkOptions = (options: SandboxOptions): Either.Either<Checked, SandboxStartError> => {
  const scale = options.timeScale ?? 1
  if (!(scale > 0) || !Number.isFinite(scale)) return Either.left(startError(`time scale must be a positive number, got ${scale}`))
  const ratio = options.failureRatio ?? 0
  if (!(ratio >= 0 && ratio <= 1)) return Either.left(startError(`failure ratio must be between 0 and 1, got ${ratio}`))
  if (!((options.payoutDelaySeconds ?? 10) >= 0)) return Either.left(startError("payout delay must be at least 0 seconds"))
  if (!((options.payinDelaySeconds ?? 10) >= 0)) return Either.left(startError("pay-in delay must be at least 0 seconds"))
  if (!((options.settlementDelaySeconds ?? 86_400) >= 0)) return Either.left(startError("settlement delay must be at least 0 seconds"))
  const funding: Array<readonly [string, number]> = []
  for (const [currency, amount] of Object.entries(options.fund ?? {})) {
    if (amount === 0) continue
    const minor = isKnownCurrency(currency) ? parseAmount(String(amount), currency) : Either.left("unknown currency")
    if (Either.isLeft(minor)) return Either.left(startError(`invalid funding ${currency}=${amount}: ${minor.left}`))
    funding.push([currency, minor.right])
  }
  return Either.map(Either.mapLeft(parseFaults(options.faults ?? ""), startError), (faults) => ({ faults, funding }))
}

/** Starts the sandbox and also hands back its state's Ref (tests read snapshots of it and plant bugs in it). */
export const launchSandbox = (
  options: SandboxOptions = {}
): Effect.Effect<SandboxInfo & { readonly state: World; readonly routes: ReadonlyArray<ServedRoute> }, SandboxStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const { faults: faultSettings, funding } = yield* checkOptions(options)
    const store = options.dataFile === undefined ? undefined : yield* openDataFile(options.dataFile)
    const restored =
      store === undefined
        ? Option.none()
        : yield* store.load(yield* Clock.currentTimeMillis).pipe(
          Effect.mapError((cause) => new SandboxStartError({ message: `cannot read the data file ${options.dataFile}: ${String(cause)}`, cause }))
        )
    const clock = yield* makeVirtualClock(options.timeScale ?? 1, Option.match(restored, { onNone: () => 0, onSome: (r) => r.lead }))
    const start = yield* clock.now
    const instance = (yield* Random.nextIntBetween(36 ** 3, 36 ** 4)).toString(36)
    const initial: SandboxState = Option.match(restored, {
      onNone: () => funding.reduce((s, [currency, minor]) => fund(s, currency, minor, start)[1], makeState(instance, start)),
      onSome: (r) => r.state
    })
    const state = yield* Ref.make(initial)
    const seed = faultSettings.seed ?? (yield* Random.nextInt)
    const faults = yield* makeFaultState(faultSettings, seed, yield* Clock.currentTimeMillis)
    const notify = yield* makeNotifier(faults, {
      ...DEFAULT_WEBHOOK_OPTIONS,
      retryBase: Duration.millis(options.webhookRetryMillis ?? 500),
      maxAttempts: options.webhookMaxAttempts ?? DEFAULT_WEBHOOK_OPTIONS.maxAttempts,
      maxInFlight: options.webhookMaxInFlight ?? DEFAULT_WEBHOOK_OPTIONS.maxInFlight,
      ...(options.webhookSecret === undefined ? {} : { secret: options.webhookSecret })
    })
    const persist =
      store === undefined
        ? Ref.update(state, untouched)
        : Effect.flatMap(Ref.get(state), (s) => (List.isNil(s.touched) ? Effect.void : Effect.flatMap(clock.lead, (lead) => store.save(state, lead))))
    const clockMoved = Ref.update(state, (s) => touch(s, CLOCK_MOVED))
    if (store !== undefined) {
      yield* clockMoved
      yield* persist
      yield* Effect.addFinalizer(() => Effect.zipRight(clockMoved, persist))
    }
    const settlementDelaySeconds = options.settlementDelaySeconds ?? 86_400
    const processDue = Effect.zipRight(makeProcessDue(state, clock, notify, settlementDelaySeconds * 1000), persist)
    // Closed before the final save above: a commit still held when the sandbox stops never happens.
    const background = yield* FiberSet.make<unknown, never>()
    const ctx = SandboxContext.of({
      state,
      clock,
      faults,
      notify,
      processDue,
      persist,
      payoutCommitted: options.onPayoutCommitted ?? (() => Effect.void),
      background: (work) => FiberSet.run(background, work),
      outcomes: Random.make(`${seed}:outcomes`),
      settings: {
        key: options.key ?? "sandbox-key",
        secret: options.secret ?? "sandbox-secret",
        extraCredentials: options.extraCredentials ?? [],
        fees: options.fees ?? DEFAULT_FEES,
        payoutDelaySeconds: options.payoutDelaySeconds ?? 10,
        delayedPayoutSeconds: 30 * 60,
        failureRatio: options.failureRatio ?? 0,
        payinDelaySeconds: options.payinDelaySeconds ?? 10,
        settlementDelaySeconds
      }
    })
    const router = HttpRouter.concatAll(walletRoutes, transactionRoutes, statusRoutes, payoutRoutes, payinRoutes, checkoutRoutes, adminRoutes)
    const app = (yield* HttpRouter.toHttpApp(router)).pipe(
      Effect.tap(() => persist),
      Effect.catchTag("RouteNotFound", (e) =>
        Effect.succeed(envelopeA(404, "Not found", { path: [`No endpoint ${e.request.method} ${e.request.url.split("?")[0]}`] }))
      ),
      gate,
      // The Date header tells the service's own (virtual) time, as a real server's clock would, and
      // X-Sandbox-Clock how that time runs (a client on this machine translates its instants with it).
      Effect.flatMap((response) =>
        Effect.zipWith(ctx.clock.now, ctx.clock.declaration, (now, declared) =>
          HttpServerResponse.setHeaders(response, { date: new Date(now).toUTCString(), [CLOCK_HEADER]: declared })
        )
      )
    )
    // The context goes into the handler's runtime, once: every request finds it there.
    const handler = NodeHttpServer.makeHandler(app).pipe(Effect.provideService(SandboxContext, ctx))
    // Spans of sandbox requests go nowhere (no tracer is installed), and cost as much as the work.
    const nodeServer = Http.createServer(yield* HttpMiddleware.withTracerDisabledWhenEffect(handler, () => true))
    const server = yield* NodeHttpServer.make(() => nodeServer, { port: options.port ?? 0, host: options.host ?? "127.0.0.1" }).pipe(
      Effect.mapError((cause) => new SandboxStartError({ message: `cannot listen: ${String(cause.cause)}`, cause }))
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => nodeServer.closeAllConnections()))
    yield* runProcessor(processDue)
    const address = server.address
    const origin = address._tag === "TcpAddress" ? `http://${hostForUrl(address.hostname)}:${address.port}` : `http://unix:${address.path}`
    const routes = Array.from(router.routes, ({ method, path }) => ({ method, path }))
    return { baseUrl: `${origin}/v1`, origin, key: ctx.settings.key, secret: ctx.settings.secret, state, routes }
  })

const openDataFile = (file: string) =>
  openStore(file).pipe(Effect.mapError((cause) => new SandboxStartError({ message: `cannot open the data file ${file}: ${String(cause)}`, cause })))

const hostForUrl = (hostname: string) => (hostname.includes(":") ? `[${hostname}]` : hostname)

export const startSandbox = (options: SandboxOptions = {}): Effect.Effect<SandboxInfo, SandboxStartError, Scope.Scope> =>
  Effect.map(launchSandbox(options), ({ baseUrl, origin, key, secret }) => ({ baseUrl, origin, key, secret }))
