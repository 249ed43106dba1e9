/**
 * `payouts watch [DIR]`: the job folder daemon (or one pass with `--once`). Wiring only: the work is
 * in src/jobs (Watcher, Job) over src/batch's runner.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Layer, Option, Ref } from "effect"
import { EXIT_ATTENTION, EXIT_INCOMPLETE } from "../../batch/ExitCode.ts"
import { type RunRequest, runBatch } from "../../batch/Runner.ts"
import { makeCronGate } from "../../jobs/CronGate.ts"
import { logHealth, serveHealth } from "../../jobs/Health.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { withLogFormat } from "../../jobs/Logging.ts"
import { makeWatcher, watchForever, watchOnce, type WatchSettings } from "../../jobs/Watcher.ts"
import * as SqliteStateStore from "../../store/SqliteStateStore.ts"
import { durationOption } from "../Duration.ts"
import { storeForWatch } from "../StoreLocation.ts"
import { UsageError } from "../Errors.ts"
import { exitCodeOnInterrupt, Exiting } from "../Failure.ts"
import type { OptionValue } from "../Output.ts"
import { resolveConnection } from "../Settings.ts"
import { resolveAccountScope } from "../../api/Account.ts"
import { batchOptions, batchRequest, clientLayer, embeddedSandbox } from "./Run.ts"

const withDefault = <A>(options: Options.Options<A>, value: A, description: string) =>
  options.pipe(Options.withDescription(description), Options.withDefault(value))

const parseHostPort = (flag: string, text: string) => {
  const match = /^(.+):(\d{1,5})$/.exec(text.trim())
  return match !== null && Number(match[2]) <= 65535
    ? Effect.succeed({ host: match[1], port: Number(match[2]) })
    : Effect.fail(new UsageError({ reason: `--${flag}: "${text}" is not HOST:PORT` }))
}

const watchOptions = Options.all({
  batch: batchOptions,
  once: Options.boolean("once").pipe(Options.withDescription("Process what is waiting (and in processing/), then exit: for system cron.")),
  schedule: Options.text("schedule").pipe(Options.withPseudoName("CRON"), Options.withDescription('Take waiting files only at these times, e.g. "0 2 * * 1-5".'), Options.optional),
  timezone: Options.text("timezone").pipe(Options.withDescription("Time zone of --schedule, e.g. Africa/Douala (default: the system's)."), Options.optional),
  requireApproval: Options.boolean("require-approval").pipe(Options.withDescription("Validate and preflight each file, then wait for `payouts approve` before paying.")),
  settle: withDefault(durationOption("settle"), Duration.seconds(2), "A dropped file is complete once unchanged for this long (or write *.part and rename)."),
  scanEvery: withDefault(durationOption("scan-every"), Duration.seconds(1), "How often the folder is looked at."),
  retryEvery: withDefault(durationOption("retry-every"), Duration.minutes(1), "When an incomplete batch in processing/ is tried again."),
  logFormat: withDefault(Options.choice("log-format", ["text", "json"]), "text" as const, "Log lines as logfmt text or one JSON object each."),
  health: Options.text("health").pipe(Options.withPseudoName("HOST:PORT"), Options.withDescription("Serve GET /health here."), Options.optional),
  healthEvery: withDefault(durationOption("health-every"), Duration.minutes(1), "How often a health line is logged.")
})

type WatchOptions = OptionValue<typeof watchOptions>

const watch = (dir: string, args: WatchOptions) =>
  Effect.gen(function* () {
    const b = args.batch
    if (Option.isSome(b.out)) return yield* new UsageError({ reason: "--out does not apply to watch: outputs travel with each file (done/, rejected/)" })
    if (Option.isSome(b.listen)) return yield* new UsageError({ reason: "--listen does not apply to watch (several batches run at once); set PAYOUTS_CALLBACK_URL or rely on polling" })
    if (args.once && Option.isSome(args.schedule)) return yield* new UsageError({ reason: "--once and --schedule exclude each other: with --once, system cron is the schedule" })
    yield* exitCodeOnInterrupt(0)
    const connection = b.sandbox ? yield* embeddedSandbox(b.timeScale) : yield* resolveConnection(b.connection)
    const scope = yield* Effect.provide(resolveAccountScope(connection.baseUrl), clientLayer(connection, b))
    const base = { ...(yield* batchRequest(b, scope.accountId)), tokenScope: scope.tokenScope }
    const account = base.accountId
    const feePercent = base.settings.feePercent
    const folder = jobFolder(dir)
    const schedule = Option.isSome(args.schedule)
      ? yield* makeCronGate(args.schedule.value, Option.getOrUndefined(args.timezone)).pipe(Effect.mapError((e) => new UsageError({ reason: e.message })))
      : undefined
    yield* daemon(dir, args, {
      accountId: account, folder, requireApproval: args.requireApproval, feePercent, settleMs: Duration.toMillis(args.settle), retryEvery: args.retryEvery, once: args.once, schedule
    }, base).pipe(
      // The jobs (and their requests in flight) end before the client closes: a request cut by a closed
      // client would be an unknown outcome for the next run to prove.
      Effect.scoped,
      Effect.provide(clientLayer(connection, b))
    )
  }).pipe(
    Effect.scoped,
    // The store lives in the job folder unless --state / PAYOUTS_STATE names another (an empty one does not).
    Effect.provide(
      Layer.unwrapEffect(
        Effect.gen(function* () {
          // The folder's store is pinned in DIR/.state/store: run, resolve, batches... find it from the file.
          const filename = yield* storeForWatch(args.batch.state, dir)
          yield* Effect.logInfo(`state store: ${filename}`)
          return SqliteStateStore.layer({ filename })
        })
      )
    ),
    withLogFormat(args.logFormat)
  )

const daemon = (dir: string, args: WatchOptions, settings: WatchSettings, base: Omit<RunRequest, "file" | "dryRun">) =>
  Effect.gen(function* () {
    const { schedule } = settings
    const watcher = yield* makeWatcher(
      settings,
      (file, dryRun) => runBatch({ ...base, file, dryRun })
    )
    const lateAfterMs = Duration.toMillis(args.scanEvery) * 10 + 30_000
    if (Option.isSome(args.health)) {
      const url = yield* serveHealth(watcher.health, yield* parseHostPort("health", args.health.value), lateAfterMs)
      yield* Effect.logInfo(`health endpoint at ${url}`)
    }
    if (args.once) {
      const attentionBefore = (yield* Ref.get(watcher.health)).attention
      yield* watchOnce(watcher)
      if ((yield* Ref.get(watcher.health)).attention > attentionBefore) {
        yield* Effect.logError("a batch needs a person: see attention/ and payouts resolve")
        return yield* new Exiting({ code: EXIT_ATTENTION })
      }
      const left = yield* watcher.leftInProcessing
      if (left > 0) {
        yield* Effect.logWarning(`${left} batch file(s) left in processing/ (incomplete or paused); run again to resume`)
        return yield* new Exiting({ code: EXIT_INCOMPLETE })
      }
      return
    }
    yield* Effect.logInfo(
      `watching ${dir} (scan every ${Duration.format(args.scanEvery)}${schedule === undefined ? "" : `, schedule "${schedule.expression}", next ${(yield* schedule.nextAt).toISOString()}`}${args.requireApproval ? ", approval required" : ""})`
    )
    yield* Effect.forkScoped(logHealth(watcher.health, args.healthEvery, lateAfterMs))
    yield* watchForever(watcher, args.scanEvery).pipe(
      Effect.onInterrupt(() => Console.error("Shutting down: finishing the requests in flight; unfinished batches stay in processing/."))
    )
  })

// One client for the daemon: one shared request rate for every batch.
export const watchCommand = Command.make(
  "watch",
  { dir: Args.directory({ name: "DIR" }).pipe(Args.withDefault("jobs")), args: watchOptions },
  ({ args, dir }) => watch(dir, args)
).pipe(Command.withDescription("Watch a job folder: pay each complete *.csv dropped in it once, move it to done/ or rejected/ with its outputs."))
