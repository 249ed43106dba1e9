/**
 * `payouts run FILE` and `payouts validate FILE`: the batch commands. Wiring only: the work is in
 * src/run (Runner) over the state store and the client.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Either, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { resolveAccountScope } from "../../api/Account.ts"
import { EXIT_INCOMPLETE, EXIT_OK } from "../../run/ExitCode.ts"
import { formatFeeEstimate, parseFeeEstimate } from "../../run/Preflight.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import { type RunRequest, runBatch } from "../../run/Runner.ts"
import { shareRequestBudget } from "../SharedBudget.ts"
import { openStore } from "../StoreOpen.ts"
import { type ClientOptions, clientLayer } from "../Connect.ts"
import { durationOption } from "../Duration.ts"
import { confirmBeforePaying } from "../Confirm.ts"
import { announceStore, storeFor } from "../StoreLocation.ts"
import { UsageError } from "../Errors.ts"
import { exitCodeOnInterrupt, Exiting } from "../Failure.ts"
import { safeguardOptions, safeguardSettings } from "../SafeguardOptions.ts"
import { type OptionValue, printJson } from "../Output.ts"
import { type Connection, connectionOptions, redirectOptions, resolveConnection, resolveRedirects, stateOption } from "../Settings.ts"
import type { AccountId } from "../../domain/Ids.ts"

/** The flags' defaults are the run's defaults (run/RunContext.ts), shared with the tests and the bench. */
const DEFAULTS = DEFAULT_RUN_SETTINGS

const withDefault = <A>(options: Options.Options<A>, value: A, description: string) =>
  options.pipe(Options.withDescription(description), Options.withDefault(value))

export const batchOptions = Options.all({
  connection: connectionOptions,
  redirects: redirectOptions,
  state: stateOption,
  sandbox: Options.boolean("sandbox").pipe(
    Options.withDescription("Start the embedded sandbox in this process, funded, and run against it (a rehearsal).")
  ),
  timeScale: withDefault(Options.float("time-scale"), 600, "With --sandbox: sandbox seconds per real second."),
  out: Options.directory("out").pipe(Options.withDescription("Write ledger, summary and errors here instead of beside the file."), Options.optional),
  json: Options.boolean("json").pipe(Options.withDescription("Print the summary as JSON on stdout.")),
  concurrency: withDefault(Options.integer("concurrency"), DEFAULTS.concurrency, "Payout requests in flight at once."),
  rate: Options.float("rate").pipe(Options.withDescription("Requests per second to the service, all calls together (default: adaptive)."), Options.optional),
  pollInterval: withDefault(durationOption("poll-interval"), Duration.millis(DEFAULTS.pollIntervalMs), "First status poll after submission; doubles each time."),
  pollMax: withDefault(durationOption("poll-max"), Duration.millis(DEFAULTS.pollMaxMs), "Longest interval between two status polls."),
  trackTimeout: withDefault(durationOption("track-timeout"), Duration.millis(DEFAULTS.trackTimeoutMs), "Stop following a payout after this long (it stays pending; exit 3)."),
  reconcileGrace: withDefault(durationOption("reconcile-grace"), Duration.millis(DEFAULTS.reconcileGraceMs), "Least wait after an ambiguous request ended before a provably unlisted payout may be resent (raised to request timeout + lease time + twice the listing lag)."),
  reconcileDeadline: withDefault(durationOption("reconcile-deadline"), Duration.millis(DEFAULTS.reconcileDeadlineMs), "An ambiguous row still unproven after this long becomes an alarm for a person."),
  resendUnknown: withDefault(Options.choice("resend-unknown", ["after", "never"]), DEFAULTS.resendUnknown, "after: resend once when the listing proves the payout absent; never: leave every unproven row to a person."),
  leaseTtl: withDefault(durationOption("lease-ttl"), Duration.millis(DEFAULTS.leaseTtlMs), "How long the batch lease lasts without renewal (part of the reconcile grace floor)."),
  requestTimeout: withDefault(durationOption("request-timeout"), Duration.millis(DEFAULTS.requestTimeoutMs), "Timeout of each request to the service."),
  listen: Options.text("listen").pipe(Options.withDescription("HOST:PORT of a webhook receiver (callback_url http://HOST:PORT/webhooks)."), Options.optional),
  skipInvalid: Options.boolean("skip-invalid").pipe(Options.withDescription("Pay the valid rows of a file with invalid rows (they are rejected in the ledger).")),
  allowRepeats: Options.boolean("allow-repeats").pipe(Options.withDescription("Accept repeated (phone, amount, operator) rows without distinct ids.")),
  repeatWindow: withDefault(durationOption("repeat-window"), Duration.hours(24), "How far back repeats in other batches are refused."),
  onInsufficient: withDefault(Options.choice("on-insufficient", ["abort", "partial"]), DEFAULTS.onInsufficient, "abort: refuse the batch; partial: pay rows in file order while they fit."),
  feeEstimate: withDefault(Options.text("fee-estimate"), formatFeeEstimate(DEFAULTS.feePercent), "Fee estimate for the balance preflight, a rule P%[,min=M]: P percent of each amount rounded up, at least M minor units per payout."),
  ledgerEvery: withDefault(durationOption("ledger-every"), Duration.seconds(15), "How often the ledger is rewritten while the run goes on."),
  progressEvery: withDefault(durationOption("progress-every"), Duration.seconds(5), "How often progress is reported."),
  outputRetry: withDefault(durationOption("output-retry"), Duration.minutes(2), "How long ledger, summary and report that cannot be written are retried at the end before exit 4 (the store keeps everything: payouts ledger BATCH)."),
  yes: Options.boolean("yes").pipe(Options.withDescription("Do not ask before paying (asked only on a terminal, against a real service).")),
  safeguards: safeguardOptions
})

type BatchOptions = OptionValue<typeof batchOptions>

const parsePercent = (text: string) =>
  Either.match(parseFeeEstimate(text), {
    onLeft: (reason) => Effect.fail(new UsageError({ reason: `--fee-estimate: ${reason}` })),
    onRight: Effect.succeed
  })

const parseListen = (text: string) => {
  const match = /^(.+):(\d{1,5})$/.exec(text.trim())
  return match !== null && Number(match[2]) <= 65535
    ? Effect.succeed({ host: match[1], port: Number(match[2]) })
    : Effect.fail(new UsageError({ reason: `--listen: "${text}" is not HOST:PORT` }))
}

const SANDBOX_FUND = { XAF: 500_000_000, XOF: 500_000_000 }

/** The embedded sandbox: fresh credentials each time, so its account never mixes with another. */
export const embeddedSandbox = (timeScale: number) =>
  Effect.gen(function* () {
    const { startSandbox } = yield* Effect.promise(() => import("../../sandbox/Sandbox.ts"))
    const key = `sbx_${randomBytes(8).toString("hex")}`
    const sandbox = yield* startSandbox({ timeScale, fund: SANDBOX_FUND, key, secret: randomBytes(16).toString("hex") })
    yield* Console.error(`Embedded sandbox at ${sandbox.baseUrl} (time scale ${timeScale}x): a rehearsal, no real money moves.`)
    return { baseUrl: sandbox.baseUrl, apiKey: Redacted.make(sandbox.key), apiSecret: Redacted.make(sandbox.secret) } satisfies Connection
  })

/** RunSettings and the rest of a RunRequest from the batch options (shared with `payouts watch`). */
export const batchRequest = (args: BatchOptions, accountId: AccountId) =>
  Effect.gen(function* () {
    if (args.concurrency < 1) return yield* new UsageError({ reason: "--concurrency must be at least 1" })
    const redirects = yield* resolveRedirects(args.redirects)
    const feePercent = yield* parsePercent(args.feeEstimate)
    const safeguards = yield* safeguardSettings(args.safeguards)
    const request: Omit<RunRequest, "file" | "dryRun" | "listen"> = {
      accountId,
      outDir: Option.getOrUndefined(args.out),
      settings: {
        concurrency: args.concurrency,
        pollIntervalMs: Duration.toMillis(args.pollInterval),
        pollMaxMs: Duration.toMillis(args.pollMax),
        trackTimeoutMs: Duration.toMillis(args.trackTimeout),
        reconcileGraceMs: Duration.toMillis(args.reconcileGrace),
        reconcileDeadlineMs: Duration.toMillis(args.reconcileDeadline),
        resendUnknown: args.resendUnknown,
        leaseTtlMs: Duration.toMillis(args.leaseTtl),
        requestTimeoutMs: Duration.toMillis(args.requestTimeout),
        feePercent,
        onInsufficient: args.onInsufficient,
        callbackUrl: Option.getOrUndefined(redirects.callbackUrl),
        returnUrl: Option.getOrElse(redirects.returnUrl, () => DEFAULTS.returnUrl),
        cancelUrl: Option.getOrElse(redirects.cancelUrl, () => DEFAULTS.cancelUrl),
        safeguards
      },
      skipInvalid: args.skipInvalid,
      allowRepeats: args.allowRepeats,
      repeatWindow: args.repeatWindow,
      ledgerEvery: args.ledgerEvery,
      progressEvery: args.progressEvery,
      outputRetry: args.outputRetry
    }
    return request
  })

/** The client for a batch run: the request timeout and the shared rate ceiling from the options. */
export const batchClient = (args: Pick<BatchOptions, "requestTimeout" | "rate">): ClientOptions => ({
  requestTimeout: args.requestTimeout,
  ratePerSecond: Option.getOrUndefined(args.rate)
})

const runWith = (file: string, args: BatchOptions, dryRun: boolean) =>
  Effect.gen(function* () {
    yield* exitCodeOnInterrupt(EXIT_INCOMPLETE)
    const connection = args.sandbox ? yield* embeddedSandbox(args.timeScale) : yield* resolveConnection(args.connection)
    const listen = Option.isSome(args.listen) ? Option.some(yield* parseListen(args.listen.value)) : Option.none()
    const client = clientLayer(connection, batchClient(args))
    // The account is asked of the service (host + wallet ids): a wrong key fails here, before anything.
    const account = yield* Effect.provide(resolveAccountScope(connection.baseUrl), client)
    const store = yield* storeFor(args.state, file)
    const confirm = confirmBeforePaying({ connection, file, yes: args.yes, sandbox: args.sandbox, dryRun })
    const request: RunRequest = {
      ...(yield* batchRequest(args, account.accountId)),
      tokenScope: account.tokenScope,
      file,
      listen: Option.getOrUndefined(listen),
      dryRun,
      statePath: store,
      ...(confirm === undefined ? {} : { confirm })
    }
    yield* announceStore(store)
    const result = yield* Effect.zipRight(shareRequestBudget(account.accountId, store), runBatch(request)).pipe(
      Effect.provide(Layer.merge(client, openStore(store)))
    )
    const summary: Readonly<Record<string, unknown>> = result.summary
    if (args.json) yield* printJson(summary)
    else if (!dryRun && typeof summary.ledger === "string") {
      const counts = Object.entries((summary.counts ?? {}) as Record<string, number>).map(([s, n]) => `${n} ${s}`)
      yield* Console.error(`Done (exit ${result.exitCode}): ${counts.join(", ")}\nLedger:  ${summary.ledger}`)
    }
    if (result.exitCode !== EXIT_OK) return yield* new Exiting({ code: result.exitCode })
  }).pipe(Effect.scoped)

const fileArg = Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("The payout CSV."))

export const runCommand = Command.make("run", { file: fileArg, args: batchOptions }, ({ args, file }) => runWith(file, args, false)).pipe(
  Command.withDescription("Pay every row of a CSV exactly once, follow each payout to its final status, write the ledger.")
)

export const validateCommand = Command.make("validate", { file: fileArg, args: batchOptions }, ({ args, file }) =>
  runWith(file, args, true)
).pipe(Command.withDescription("Dry run: parse, validate and check the balance; pays nothing. Exit 0 when the file would be paid whole, 2 when refused."))
