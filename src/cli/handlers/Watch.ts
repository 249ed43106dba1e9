/**
 * `payouts watch [DIR]`: wiring only; the work is in src/jobs (Watcher, Job) over src/run's runner.
 * Loaded when the command runs.
 */
import { Cause, Duration, Effect, Either, Layer, Option, Ref } from "effect"
import { EXIT_ATTENTION, EXIT_INCOMPLETE, EXIT_INTERNAL } from "../../run/ExitCode.ts"
import { runBatch } from "../../run/Runner.ts"
import type { RunRequest } from "../../run/RunRequest.ts"
import { approvalPolicyOf } from "../ApprovalPolicy.ts"
import { makeCronGate, shownIn } from "../../jobs/CronGate.ts"
import { type HealthState, logHealth, makeHealth, serveHealth, serviceIs } from "../../jobs/Health.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { withLogFormat } from "../Logging.ts"
import { refusalsOfTheService, ServiceProblem, serviceProblemOf, ServiceTrouble } from "../../jobs/ServiceProblem.ts"
import { backoff, problemOf } from "../../jobs/JobProblem.ts"
import { claimReady } from "../../jobs/Claiming.ts"
import { makeWatcher, watchForever, watchOnce, type WatchSettings } from "../../jobs/Watcher.ts"
import type { watchCommand } from "../commands/Watch.ts"
import { lookupAccountScope, shareRequestBudget } from "../SharedBudget.ts"
import { openStore, shownLocation } from "../StoreOpen.ts"
import { storeForWatch } from "../StoreLocation.ts"
import { UsageError } from "../Errors.ts"
import { exitCodeOnInterrupt, Exiting, report } from "../Failure.ts"
import { stderrNotices } from "../Notices.ts"
import { Notices } from "../../run/Notices.ts"
import { userFormat } from "../../output/Format.ts"
import type { Parsed } from "../Lazy.ts"
import { clientLayer } from "../Connect.ts"
import { resolveConnection } from "../Settings.ts"
import { refusedKeyAdvice } from "../config/Sources.ts"
import { batchRequest, notifierFor } from "./Run.ts"
import { batchClient, embeddedSandbox } from "./Validate.ts"
import { AccountId } from "../../domain/Ids.ts"
import { scheduleErrorText, WatchLogLive } from "../WatchText.ts"
import { JobNotesLive } from "../JobNoteText.ts"
import { jobProblemText, serviceTroubleText } from "../ServiceText.ts"

const parseHostPort = (flag: string, text: string) => {
  const match = /^(.+):(\d{1,5})$/.exec(text.trim())
  return match !== null && Number(match[2]) <= 65535
    ? Effect.succeed({ host: match[1], port: Number(match[2]) })
    : Effect.fail(new UsageError({ reason: `--${flag}: "${text}" is not HOST:PORT` }))
}

type WatchOptions = Parsed<typeof watchCommand>["args"]

/** `--approvers`, `--four-eyes` and `--submitted-by` as the approval policy. */
const approvalPolicy = (args: WatchOptions) =>
  Effect.tap(approvalPolicyOf(args), (policy) => {
    const used = policy.approvers.length > 0 || policy.fourEyes || policy.submittedBy !== undefined
    return used && !args.requireApproval ? Effect.logWarning("--approvers, --four-eyes and --submitted-by apply to files under --require-approval") : Effect.void
  })

const watchFolder = (dir: string, args: WatchOptions) =>
  Effect.gen(function* () {
    const b = args.batch
    if (args.once && Option.isSome(args.schedule)) return yield* new UsageError({ reason: "--once and --schedule exclude each other: with --once, system cron is the schedule" })
    const approval = yield* approvalPolicy(args)
    const notifier = yield* notifierFor(b.notify, (text) => Effect.logWarning(text))
    // Settings are checked before the service is asked anything; the account is filled in once known.
    const request = yield* batchRequest(b, AccountId.make(""))
    yield* exitCodeOnInterrupt(0)
    const connection = b.sandbox ? yield* embeddedSandbox(b.timeScale) : yield* resolveConnection(b.connection)
    // A live profile makes a person's "yes" mandatory before real money moves; unattended, that is an approval.
    if ("live" in connection && connection.live === true && !args.requireApproval) {
      return yield* new UsageError({
        reason: `profile "${connection.profile ?? ""}" is marked live: watch pays with no one to ask, so it needs --require-approval (each batch approved with payouts approve)`
      })
    }
    const folder = jobFolder(dir)
    const health = yield* makeHealth
    const lateAfterMs = Duration.toMillis(args.scanEvery) * 10 + 30_000
    if (Option.isSome(args.health)) {
      const url = yield* serveHealth(health, yield* parseHostPort("health", args.health.value), lateAfterMs)
      yield* Effect.logInfo(`health endpoint at ${url}`)
    }
    const scope = yield* accountScope(connection, b, args, health, yield* storeForWatch(b.state, dir))
    if (Either.isLeft(scope)) {
      // --once with the service out of reach: the files are taken (never rejected) and wait in processing/.
      const claimed = yield* claimReady(folder, Duration.toMillis(args.settle))
      yield* Effect.logError(
        `the service cannot be used: ${serviceTroubleText(scope.left.trouble)}; ${claimed} file(s) claimed and every file in processing/ kept there, not rejected. Run again once it is back.`
      )
      return yield* new Exiting({ code: EXIT_INCOMPLETE })
    }
    // Each run checks the store's folder for room before its first payout, as `run` does.
    const statePath = yield* storeForWatch(b.state, dir)
    // Each file moves with its outputs once run: the watcher, not the run, names where they end up.
    const base = { ...request, accountId: scope.right.accountId, tokenScope: scope.right.tokenScope, statePath, outputsMoved: true }
    const schedule = Option.isSome(args.schedule)
      ? yield* makeCronGate(args.schedule.value, Option.getOrUndefined(args.timezone)).pipe(Effect.mapError((e) => new UsageError({ reason: scheduleErrorText(e) })))
      : undefined
    const settings: WatchSettings = {
      accountId: base.accountId,
      folder,
      requireApproval: args.requireApproval,
      approval,
      feePercent: base.settings.feePercent,
      settleMs: Duration.toMillis(args.settle),
      retryEvery: args.retryEvery,
      once: args.once,
      schedule,
      // A worker that stops renewing its currency locks frees them when its batch lease would expire.
      workerTtlMs: base.settings.leaseTtlMs
    }
    yield* Effect.zipRight(shareRequestBudget(base.accountId, statePath), daemon(dir, args, settings, base, health)).pipe(
      // The jobs (and their requests in flight) end before the client closes: a request cut by a closed
      // client would be an unknown outcome for the next run to prove.
      Effect.scoped,
      Effect.provide(clientLayer(connection, batchClient(b))),
      Effect.provide(notifier)
    )
  }).pipe(
    Effect.scoped,
    // The store lives in the job folder unless --state / PAYOUTS_STATE names another (an empty one does not).
    Effect.provide(
      Layer.unwrapEffect(
        Effect.gen(function* () {
          // The folder's store is pinned in DIR/.state/store: run, resolve, batches... find it from the file.
          const filename = yield* storeForWatch(args.batch.state, dir)
          yield* Effect.logInfo(`state store: ${shownLocation(filename)}`)
          return openStore(filename)
        })
      )
    ),
    // Progress as lines of the log, never a live figure drawn between them.
    Effect.provide(Layer.effect(Notices, Effect.map(userFormat, (format) => stderrNotices(false, format)))),
    Effect.provide(WatchLogLive),
    Effect.provide(JobNotesLive),
    // A failure is said as any other line, in the chosen format (then the exit code, as for every command).
    withLogFormat<Exiting>(args.logFormat, (program) => report(program, "watch"))
  )

/**
 * The account (the store's scope) is asked of the service. While the service cannot be used the
 * daemon waits and asks again with backoff (health and logs say why); `--once` asks once.
 */
const accountScope = (connection: Parameters<typeof clientLayer>[0], b: WatchOptions["batch"], args: WatchOptions, health: Ref.Ref<HealthState>, store: string) =>
  lookupAccountScope(connection, clientLayer(connection, batchClient(b)), store).pipe(
    // A refused key: where the key, the secret and the base URL came from, as run says it.
    Effect.catchTag("AuthError", (e) =>
      Effect.flatMap(refusedKeyAdvice(connection), (advice) => new ServiceProblem({ kind: "auth", trouble: ServiceTrouble.RefusedKey({ message: e.message, advice }) }))
    ),
    Effect.mapError((e) => (e instanceof ServiceProblem ? e : Option.getOrElse(serviceProblemOf(e), () => new ServiceProblem({ kind: "unexpected", trouble: ServiceTrouble.Failed({ message: e.message }) })))),
    Effect.tapError((problem) =>
      Effect.zipRight(serviceIs(health, serviceTroubleText(problem.trouble)), Effect.logWarning(`the service cannot be used: ${serviceTroubleText(problem.trouble)}${args.once ? "" : "; asking again with backoff"}`))
    ),
    (resolve) => (args.once ? resolve : Effect.retry(resolve, backoff(args.retryEvery))),
    Effect.tap(() => serviceIs(health, undefined)),
    Effect.either
  )

const daemon = (dir: string, args: WatchOptions, settings: WatchSettings, base: Omit<RunRequest, "file" | "dryRun">, health: Ref.Ref<HealthState>) =>
  Effect.gen(function* () {
    const { schedule } = settings
    const watcher = yield* makeWatcher(
      settings,
      // A refusal that followed a failure of the service is the service's, not the file's: kept, not rejected.
      (file, dryRun) => refusalsOfTheService(runBatch({ ...base, file, dryRun })),
      health
    )
    const lateAfterMs = Duration.toMillis(args.scanEvery) * 10 + 30_000
    if (args.once) {
      // A pass that cannot even look at the folder (a disk, a store) is an internal failure: exit 4.
      yield* watchOnce(watcher).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.interrupt
            : Effect.zipRight(Effect.logError(`the job folder could not be processed: ${jobProblemText(problemOf(cause))}`), new Exiting({ code: EXIT_INTERNAL }))
        )
      )
      if ((yield* watcher.attentionHere) > 0) {
        yield* Effect.logError("a batch needs a person: see attention/ and payouts resolve")
        return yield* new Exiting({ code: EXIT_ATTENTION })
      }
      const internal = yield* watcher.internalFailures
      if (internal > 0) {
        yield* Effect.logError(`${internal} batch file(s) could not be run because of an internal failure (see above); kept in processing/, run again once it is fixed`)
        return yield* new Exiting({ code: EXIT_INTERNAL })
      }
      const left = yield* watcher.leftInProcessing
      if (left > 0) {
        const service = (yield* Ref.get(watcher.health)).service
        yield* Effect.logWarning(
          `${left} batch file(s) left in processing/ (${service === undefined ? "incomplete or paused" : `the service cannot be used: ${service.reason}`}); run again to resume`
        )
        return yield* new Exiting({ code: EXIT_INCOMPLETE })
      }
      return
    }
    yield* Effect.logInfo(
      `watching ${dir} (scan every ${Duration.format(args.scanEvery)}${
        schedule === undefined ? "" : `, schedule "${schedule.expression}" in ${schedule.timeZone}, next run ${shownIn(yield* schedule.nextAt, schedule.timeZone)}`
      }${args.requireApproval ? ", approval required" : ""})`
    )
    yield* Effect.forkScoped(logHealth(watcher.health, args.healthEvery, lateAfterMs))
    yield* watchForever(watcher, args.scanEvery).pipe(
      Effect.onInterrupt(() => Effect.logInfo("Shutting down: finishing the requests in flight; unfinished batches stay in processing/."))
    )
  })

// One client for the daemon: one shared request rate for every batch.
export const watch = ({ args, dir }: Parsed<typeof watchCommand>) => watchFolder(dir, args)
