/**
 * `payouts run FILE`: wiring only; the work is in src/run (Runner) over the state store and the
 * client. Loaded when it (or `payouts watch`) runs; `payouts validate` has its own (./Validate.ts).
 */
import { Console, Context, Duration, Effect, Layer, Option, Ref } from "effect"
import { EXIT_INCOMPLETE, EXIT_OK } from "../../run/ExitCode.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import { runBatch } from "../../run/Runner.ts"
import type { RunRequest, RunResult } from "../../run/RunRequest.ts"
import { isOutcome, type NoticeSink, Notices } from "../../run/Notices.ts"
import { startNotifier } from "../../notify/Notifier.ts"
import type { checkOptions, runCommand, watchBatchOptions } from "../commands/Run.ts"
import { lookupAccountScope, shareRequestBudget } from "../SharedBudget.ts"
import { openStore } from "../StoreOpen.ts"
import { clientLayer } from "../Connect.ts"
import { confirmBeforePaying } from "../Confirm.ts"
import { announceStore, storeFor } from "../StoreLocation.ts"
import { CredentialsRefused, type InvalidSetting, UsageError } from "../Errors.ts"
import { refusedKeyAdvice } from "../config/Sources.ts"
import { exitCodeOnInterrupt, Exiting } from "../Failure.ts"
import { parseListen } from "../Listen.ts"
import type { Parsed } from "../Lazy.ts"
import { safeguardSettings } from "../SafeguardOptions.ts"
import { type OptionValue, printJson } from "../Output.ts"
import { closingLines } from "../Closing.ts"
import { userFormat } from "../../output/Format.ts"
import { resolveConnection, resolveRedirects } from "../Settings.ts"
import type { AccountId } from "../../domain/Ids.ts"
import { batchClient, checkRequest, embeddedSandbox, type Outputs } from "./Validate.ts"

const DEFAULTS = DEFAULT_RUN_SETTINGS

/** The batch options `run` and `watch` share (`run` adds --out, --json, --listen and --yes). */
type BatchOptions = OptionValue<typeof watchBatchOptions> & Outputs

type CheckOptions = OptionValue<typeof checkOptions>

/** RunSettings and the rest of a RunRequest from the batch options (shared with `payouts watch`). */
export const batchRequest = (args: BatchOptions, accountId: AccountId) =>
  Effect.gen(function* () {
    if (args.concurrency < 1) return yield* new UsageError({ reason: "--concurrency must be at least 1" })
    const redirects = yield* resolveRedirects(args.redirects)
    const checks = yield* checkRequest(args, accountId)
    const safeguards = yield* safeguardSettings(args.stopRules, args.guards)
    const request: Omit<RunRequest, "file" | "dryRun" | "listen"> = {
      ...checks,
      settings: {
        ...checks.settings,
        concurrency: args.concurrency,
        pollIntervalMs: Duration.toMillis(args.pollInterval),
        pollMaxMs: Duration.toMillis(args.pollMax),
        trackTimeoutMs: Duration.toMillis(args.trackTimeout),
        reconcileGraceMs: Duration.toMillis(args.reconcileGrace),
        reconcileDeadlineMs: Duration.toMillis(args.reconcileDeadline),
        resendUnknown: args.resendUnknown,
        leaseTtlMs: Duration.toMillis(args.leaseTtl),
        callbackUrl: Option.getOrUndefined(redirects.callbackUrl),
        returnUrl: Option.getOrElse(redirects.returnUrl, () => DEFAULTS.returnUrl),
        cancelUrl: Option.getOrElse(redirects.cancelUrl, () => DEFAULTS.cancelUrl),
        safeguards
      },
      ledgerEvery: args.ledgerEvery,
      progressEvery: args.progressEvery,
      outputRetry: args.outputRetry
    }
    return request
  })

/** `--notify URL` given: the started notifier; else none (every notification dropped). */
export const notifierFor = (url: Option.Option<string>, warn: (text: string) => Effect.Effect<void>) =>
  Option.isNone(url)
    ? Effect.succeed(Context.empty())
    : startNotifier(url.value, warn).pipe(Effect.mapError((e) => new UsageError({ reason: e.reason })))

/** How `run` and `validate` differ: `run` pays (it may listen for webhooks and ask first), `validate` only checks. */
interface Plan {
  readonly dryRun: boolean
  readonly listen: Option.Option<string>
  /** `--callback-url`: a wildcard `--listen` needs one. */
  readonly callbackUrl: Option.Option<string>
  /** `--notify URL`: `run` only (a dry run tells nothing). */
  readonly notify: Option.Option<string>
  readonly yes: boolean
  readonly request: (accountId: AccountId) => Effect.Effect<Omit<RunRequest, "file" | "dryRun" | "listen">, UsageError | InvalidSetting>
}

const runWith = (file: string, args: CheckOptions, plan: Plan) =>
  Effect.gen(function* () {
    const { dryRun } = plan
    // Checked before anything is sent: a wildcard --listen without a callback URL is refused.
    const listen = Option.isSome(plan.listen) ? Option.some(yield* parseListen(plan.listen.value, plan.callbackUrl)) : Option.none()
    yield* exitCodeOnInterrupt(EXIT_INCOMPLETE)
    // Checked before anything starts; flushed (briefly) when the command's scope closes, after the summary.
    const notifier = yield* notifierFor(plan.notify, (text) => Console.error(text))
    const connection = args.sandbox ? yield* embeddedSandbox(args.timeScale) : yield* resolveConnection(args.connection)
    const client = clientLayer(connection, batchClient(args))
    // The account is asked of the service (host + wallet ids): a wrong key fails here, before anything.
    const store = yield* storeFor(args.state, file)
    const account = yield* lookupAccountScope(connection, client, store).pipe(
      Effect.catchTag("AuthError", (e) => Effect.flatMap(refusedKeyAdvice(connection), (advice) => new CredentialsRefused({ baseUrl: connection.baseUrl, detail: e.message, advice })))
    )
    const confirm = yield* confirmBeforePaying({ connection, file, yes: plan.yes, sandbox: args.sandbox, dryRun })
    const request: RunRequest = {
      ...(yield* plan.request(account.accountId)),
      tokenScope: account.tokenScope,
      file,
      listen: Option.getOrUndefined(listen),
      dryRun,
      statePath: store,
      ...(confirm === undefined ? {} : { confirm })
    }
    yield* announceStore(store)
    // One closing block: how the run ended, with the counts, and the command that comes next; said
    // once runBatch answers, or, on Ctrl-C (no answer comes), as the interrupted run ends.
    const format = yield* userFormat
    const closed = yield* Ref.make(false)
    const closing = (result: Pick<RunResult, "exitCode" | "outcome" | "summary">) => closingLines(result, file, format).join("\n")
    const notices = yield* Notices
    const sink: NoticeSink = {
      emit: (notice) =>
        // The closing line (printed unless --json) tells the outcome: its message is not said twice.
        isOutcome(notice) && !args.json
          ? Effect.void
          : notice._tag !== "Ended"
          ? notices.emit(notice)
          : notice.outcome._tag === "Incomplete" && notice.outcome.reason === "interrupted" && !args.json
            ? Effect.zipRight(Ref.set(closed, true), notices.emit({ _tag: "Message", text: closing(notice) }))
            : Effect.void
    }
    const result = yield* Effect.zipRight(shareRequestBudget(account.accountId, store), runBatch(request)).pipe(
      Effect.provide(Layer.merge(client, openStore(store))),
      Effect.provide(notifier),
      Effect.provideService(Notices, sink)
    )
    if (args.json) yield* printJson(result.summary)
    else if (!dryRun && !(yield* Ref.get(closed))) yield* Console.error(closing(result))
    if (result.exitCode !== EXIT_OK) return yield* new Exiting({ code: result.exitCode })
  }).pipe(Effect.scoped)

export const run = ({ args, file }: Parsed<typeof runCommand>) =>
  runWith(file, args, { dryRun: false, listen: args.listen, callbackUrl: args.redirects.callbackUrl, notify: args.notify, yes: args.yes, request: (accountId) => batchRequest(args, accountId) })
