/**
 * `payouts validate FILE`: the file's own checks first; the account (a `GET /wallet`), the store and
 * the balance preflight only once they pass (or with --skip-invalid). A file refused at intake is
 * refused on its own errors, so this module loads neither the HTTP client nor the store nor the run
 * engine (scripts/build.mjs keeps them in chunks imported below when needed). The options `run`
 * shares with it (`checkRequest`, the embedded sandbox) are here for the same reason.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Console, Context, Data, DateTime, Duration, Effect, Either, Layer, Option, Redacted, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { basename } from "node:path"
import type { AccountId } from "../../domain/Ids.ts"
import type { PaymentClient } from "../../api/Client.ts"
import type { RequestGate } from "../../api/RequestGate.ts"
import { makeCrossBatch } from "../../intake/CrossBatch.ts"
import { checkFile } from "../../intake/DryRun.ts"
import { type GuardSettings, NO_GUARDS } from "../../intake/Guards.ts"
import { fileBatchId } from "../../intake/FileBatchId.ts"
import type { Intake } from "../../intake/IntakeResult.ts"
import { outputPaths } from "../../output/AtomicFile.ts"
import { formatRowErrors } from "../../output/ErrorsFile.ts"
import { makeSummary, writeErrors } from "../../output/Outputs.ts"
import { EXIT_INCOMPLETE, EXIT_OK, EXIT_REFUSED } from "../../run/ExitCode.ts"
import { say } from "../../run/Notices.ts"
import { parseFeeEstimate } from "../../domain/FeeEstimate.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import type { RunRequest } from "../../run/RunRequest.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import type { StoreServices } from "../../store/Sql/Store.ts"
import { type checkOptions, RUN_PACING, type validateCommand } from "../commands/Run.ts"
import { CredentialsRefused, UsageError } from "../Errors.ts"
import { exitCodeOnInterrupt, Exiting } from "../Failure.ts"
import type { Parsed } from "../Lazy.ts"
import { type OptionValue, printJson } from "../Output.ts"
import { guardSettings } from "../SafeguardOptions.ts"
import { type Connection, resolveConnection } from "../Settings.ts"
import { announceStore, storeFor } from "../StoreLocation.ts"

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

type CheckOptions = OptionValue<typeof checkOptions>

/** `--out`: where `run` and `validate` write; a job folder's outputs travel with each file instead. */
export interface Outputs {
  readonly out?: Option.Option<string>
}

export type CheckRequest = Omit<RunRequest, "file" | "dryRun" | "listen">

/**
 * A RunRequest from what `validate` takes (the file's checks and the preflight); how a run paces and
 * follows its payouts keeps the run's defaults, as a dry run never gets that far.
 */
export const checkRequest = (args: Omit<CheckOptions, "out" | "json"> & Outputs, accountId: AccountId) =>
  Effect.gen(function* () {
    const feePercent = yield* Either.match(parseFeeEstimate(args.feeEstimate), {
      onLeft: (reason) => Effect.fail(new UsageError({ reason: `--fee-estimate: ${reason}` })),
      onRight: Effect.succeed
    })
    const guards = yield* guardSettings(args.guards)
    const request: CheckRequest = {
      accountId,
      outDir: args.out === undefined ? undefined : Option.getOrUndefined(args.out),
      settings: { ...DEFAULT_RUN_SETTINGS, requestTimeoutMs: Duration.toMillis(args.requestTimeout), feePercent, onInsufficient: args.onInsufficient, safeguards: { guards } },
      skipInvalid: args.skipInvalid,
      allowRepeats: args.allowRepeats,
      allowSharedPhone: args.allowSharedPhone,
      repeatWindow: args.repeatWindow,
      ...RUN_PACING
    }
    return request
  })

/** The client for a batch run: the request timeout and the shared rate ceiling from the options. */
export const batchClient = (args: Pick<CheckOptions, "requestTimeout" | "rate">) => ({
  requestTimeout: args.requestTimeout,
  ratePerSecond: Option.getOrUndefined(args.rate)
})

const guardsOf = (request: CheckRequest): GuardSettings => request.settings.safeguards?.guards ?? NO_GUARDS

/** The file is in the store already (run before): checked as `payouts run`'s dry run checks it. */
class AlreadyStored extends Data.TaggedError("AlreadyStored") {}

interface Account {
  readonly accountId: AccountId
  readonly tokenScope: string
  readonly services: Context.Context<PaymentClient | RequestGate | StoreServices>
}

/** A dry run: the file's checks and the balance preflight; it never pays, listens or asks. */
export const validate = ({ args, file }: Parsed<typeof validateCommand>) =>
  Effect.gen(function* () {
    yield* exitCodeOnInterrupt(EXIT_INCOMPLETE)
    const connection = args.sandbox ? yield* embeddedSandbox(args.timeScale) : yield* resolveConnection(args.connection)
    const store = yield* storeFor(args.state, file)
    // The account is not known yet: the request's own settings are checked now, it is named below.
    const checks = yield* checkRequest(args, "" as AccountId)
    // Said where `payouts run` says it: after the account lookup, or before a refusal that needed none.
    const announce = yield* Effect.cached(announceStore(store))
    const startedAt = yield* Clock.currentTimeMillis
    const paths = outputPaths(file, checks.outDir)
    if (checks.outDir !== undefined) yield* (yield* FileSystem.FileSystem).makeDirectory(checks.outDir, { recursive: true })
    const batchId = yield* fileBatchId(file)
    const scope = yield* Scope.Scope

    // The account is asked of the service (host + wallet ids): a wrong key fails here, before any row is compared.
    const account = yield* Effect.cached(Effect.gen(function* () {
      const [{ clientLayer }, { lookupAccountScope, shareRequestBudget }, { openStore }] = yield* Effect.promise(() =>
        Promise.all([import("../Connect.ts"), import("../SharedBudget.ts"), import("../StoreOpen.ts")])
      )
      const client = yield* Layer.buildWithScope(clientLayer(connection, batchClient(args)), scope)
      const found = yield* lookupAccountScope(connection, Layer.succeedContext(client), store).pipe(
        Effect.catchTag("AuthError", (e) =>
          Effect.promise(() => import("../config/Sources.ts")).pipe(
            Effect.flatMap(({ refusedKeyAdvice }) => refusedKeyAdvice(connection)),
            Effect.flatMap((advice) => new CredentialsRefused({ baseUrl: connection.baseUrl, detail: e.message, advice }))
          ))
      )
      yield* announce
      const services = Context.merge(client, yield* Layer.buildWithScope(openStore(store), scope))
      yield* shareRequestBudget(found.accountId, store).pipe(Effect.provide(services))
      return { ...found, services } satisfies Account
    }))

    const others = Effect.gen(function* () {
      const { accountId, services } = yield* account
      const existing = yield* Effect.flatMap(Batches, (b) => b.getBatch(accountId, batchId)).pipe(Effect.provide(services))
      if (Option.isSome(existing) && existing.value.state !== "loading") return yield* new AlreadyStored()
      const since = DateTime.subtractDuration(yield* DateTime.now, args.repeatWindow)
      return yield* makeCrossBatch({ accountId, batchId, allowRepeats: args.allowRepeats, since, guards: guardsOf(checks) }).pipe(
        Effect.provide(services)
      )
    })

    const checked = yield* checkFile(
      { batchId, file, fileName: basename(file), allowRepeats: args.allowRepeats, allowSharedPhone: args.allowSharedPhone, skipInvalid: args.skipInvalid },
      { open: others, ownFirst: true }
    ).pipe(Effect.map(Either.right), Effect.catchTag("AlreadyStored", () => Effect.succeed(Either.left("stored" as const))))

    const requestFor = ({ accountId, tokenScope }: Account): RunRequest => ({ ...checks, accountId, tokenScope, file, dryRun: true, statePath: store })
    const outcome = yield* Either.match(checked, {
      onLeft: () => Effect.flatMap(account, (a) => alreadyStored(requestFor(a)).pipe(Effect.provide(a.services))),
      onRight: (loaded) =>
        loaded._tag === "Checked"
          ? Effect.flatMap(account, (a) => preflight(requestFor(a), loaded, paths, startedAt).pipe(Effect.provide(a.services)))
          : Effect.zipRight(announce, refused(loaded, file, paths, startedAt))
    })
    if (args.json) yield* printJson(outcome.summary)
    if (outcome.exitCode !== EXIT_OK) return yield* new Exiting({ code: outcome.exitCode })
  }).pipe(Effect.scoped)

type Paths = ReturnType<typeof outputPaths>

/** A file run before: what `payouts run`'s dry run says of it (the preflight over its rows still to send). */
const alreadyStored = (request: RunRequest) => Effect.flatMap(Effect.promise(() => import("../../run/Runner.ts")), ({ runBatch }) => runBatch(request))

/** A file refused on its checks: the errors file, the errors on stderr, the verdict last (as `payouts run`'s intake words it). */
const refused = (loaded: Extract<Intake, { _tag: "Refused" }>, file: string, paths: Paths, startedAt: number) =>
  Effect.gen(function* () {
    yield* writeErrors(paths, loaded.errors)
    yield* say(formatRowErrors(loaded.errors, { file, errorsFile: paths.errors }))
    yield* say(`NOT OK: the file would be refused, nothing paid. Errors written to ${paths.errors}`)
    const summary = yield* makeSummary({
      batchId: loaded.batchId,
      file,
      startedAt,
      counts: { rejected: loaded.rows },
      totals: {},
      exitCode: EXIT_REFUSED,
      outcome: "refused: invalid file",
      extra: { errors: loaded.errors.length, errors_file: paths.errors }
    })
    return { exitCode: EXIT_REFUSED, summary: summary as Readonly<Record<string, unknown>> }
  })

/** A file that passed (or whose invalid rows --skip-invalid leaves out): the balance preflight and the verdict. */
const preflight = (request: RunRequest, loaded: Extract<Intake, { _tag: "Checked" }>, paths: Paths, startedAt: number) =>
  Effect.gen(function* () {
    if (loaded.errors.length > 0) {
      yield* writeErrors(paths, loaded.errors)
      yield* say(`${loaded.errors.length} invalid rows would be rejected (--skip-invalid); see ${paths.errors}`)
    }
    const { dryRunOutcome } = yield* Effect.promise(() => import("../../run/BalanceCheck.ts"))
    return yield* dryRunOutcome(request, loaded, startedAt)
  })
