/**
 * `payouts watch`: each pass resumes what is in `processing/` and claims the complete files dropped
 * in the folder (at scheduled times only, with `--schedule`). Jobs run concurrently, one batch per
 * currency wallet at a time; an interruption (SIGTERM) lets each running batch finish its requests
 * in flight and persist, leaving its file in `processing/` for the next start. A job the service or
 * the machine keeps from finishing (unreachable, 5xx, a refused key, a full disk, an unusable store)
 * leaves its file in `processing/` and is tried again with backoff; health and logs say why
 * (WatchHealth.ts).
 */
import { Cause, Clock, Duration, Effect, FiberSet, Option, Ref, Schedule } from "effect"
import { existsSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { makeArrivals } from "./Arrivals.ts"
import { take } from "./Claiming.ts"
import { makeCurrencyLocks } from "./CurrencyLocks.ts"
import type { CronGate } from "./CronGate.ts"
import { type HealthState, makeHealth, recount } from "./Health.ts"
import { processJob } from "./Job.ts"
import type { JobSettings, RunFile } from "./JobSettings.ts"
import { JobOutcome } from "./JobOutcome.ts"
import { tellWatch, WatchEvent } from "./WatchEvents.ts"
import { makeWatchHealth } from "./WatchHealth.ts"
import { batchFilesIn, DEFAULT_JOBS_DIR, ensureFolders } from "./JobFolder.ts"
import { makeRenames } from "./Renames.ts"
import { scanFile } from "./Scan.ts"
import { backoff, problemOf } from "./JobProblem.ts"
import { holdCurrencies } from "./Workers.ts"
import { runnerName } from "../run/Lease.ts"

export interface WatchSettings extends JobSettings {
  readonly settleMs: number
  /** A file whose run ended incomplete is tried again after this long. */
  readonly retryEvery: Duration.Duration
  /** Process what is waiting (ignoring any schedule) and return. */
  readonly once: boolean
  readonly schedule?: CronGate
  /** This worker's name in the store's locks and heartbeats (host:boot:pid:watch by default). */
  readonly worker?: string
  /** A currency lock or heartbeat not renewed for this long is another worker's to take (default 60s). */
  readonly workerTtlMs?: number
}

/** ` --jobs DIR` for the commands a log line suggests, or nothing when DIR is their default (`jobs`). */
export const jobsFlagFor = (root: string): string =>
  resolve(root) === resolve(DEFAULT_JOBS_DIR) ? "" : ` --jobs ${/^[\w./-]+$/.test(root) ? root : `'${root.replaceAll("'", "'\\''")}'`}`

export const makeWatcher = <E, R>(settings: WatchSettings, run: RunFile<E, R>, shared?: Ref.Ref<HealthState>) =>
  Effect.gen(function* () {
    const { folder } = settings
    const arrivals = yield* makeArrivals(settings.settleMs)
    const jobs = yield* FiberSet.make<void, never>()
    const health = shared ?? (yield* makeHealth)
    /** Files whose job runs in this process. */
    const running = yield* Ref.make<ReadonlySet<string>>(new Set())
    /** When a file left incomplete or paused is looked at again. */
    const retryAt = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
    /** Paused files and why (each pause is said once). */
    const held = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
    /** Files already told to wait for the schedule (each is told once, not at every scan). */
    const toldToWait = yield* Ref.make<ReadonlySet<string>>(new Set())
    const worker = settings.worker ?? runnerName("watch")
    const workerTtlMs = settings.workerTtlMs ?? 60_000
    const watch = yield* makeWatchHealth(settings, health, worker, workerTtlMs)
    const { exclusive } = yield* makeCurrencyLocks

    /** Batches this process sent to attention/ (`--once` exits 5 for them). */
    const attentionHere = yield* Ref.make(0)
    const renames = yield* makeRenames

    const without = <K, V>(map: ReadonlyMap<K, V>, key: K): ReadonlyMap<K, V> => {
      const copy = new Map(map)
      copy.delete(key)
      return copy
    }

    /** Health's counts as the folder is now (Health.ts `recount`); a paused file no longer there is forgotten. */
    const recountNow = Effect.gen(function* () {
      const present = yield* recount(health, folder, yield* Ref.get(running), yield* Ref.get(held))
      yield* Ref.update(held, (paused) => new Map([...paused].filter(([csv]) => present.has(csv))))
    })

    // The commands a log line suggests must work as written: they name this folder unless it is their default.
    const jobsFlag = jobsFlagFor(folder.root)

    const report = (csv: string, outcome: JobOutcome) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if ("file" in outcome) yield* renames.tellRenamed(csv, outcome.file)
        switch (outcome._tag) {
          case "Held": {
            const told = (yield* Ref.get(held)).get(csv) === outcome.reason
            yield* Ref.update(held, (paused) => new Map(paused).set(csv, outcome.reason))
            yield* Ref.update(retryAt, (at) => new Map(at).set(csv, now + Duration.toMillis(settings.retryEvery)))
            if (told) return
            break
          }
          case "Attention":
            yield* Ref.update(attentionHere, (n) => n + 1)
            break
          case "Incomplete":
            yield* Ref.update(retryAt, (at) => new Map(at).set(csv, now + Duration.toMillis(settings.retryEvery)))
            break
        }
        yield* tellWatch(WatchEvent.JobEnded({ csv, outcome, jobsFlag }))
      })

    const attempt = (csv: string) =>
      Effect.gen(function* () {
        // Another worker sharing the folder may have taken the file to its next place meanwhile.
        if (!existsSync(csv)) return yield* tellWatch(WatchEvent.TakenElsewhere({ name: basename(csv) }))
        const plan = yield* scanFile(csv, settings.feePercent)
        // This process's jobs queue per currency; the store's lock keeps other workers' off it too.
        const outcome = yield* exclusive(
          plan.currencies,
          Effect.scoped(
            Effect.flatMap(holdCurrencies(settings.accountId, plan.currencies, worker, workerTtlMs), (held) =>
              held
                ? processJob(settings, run, csv)
                : Effect.succeed(JobOutcome.Busy({ currencies: plan.currencies }))
            )
          )
        )
        if (outcome._tag === "Busy") return yield* report(csv, outcome)
        if (outcome._tag !== "Held") yield* Ref.update(held, (paused) => without(paused, csv))
        yield* watch.ended(csv, outcome)
        yield* report(csv, outcome)
        yield* recountNow
      })

    const handle = (csv: string) =>
      attempt(csv).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.interrupt
            : !existsSync(csv)
              ? tellWatch(WatchEvent.TakenElsewhere({ name: basename(csv) }))
              : Effect.zipRight(Effect.logDebug(Cause.pretty(cause)), Effect.fail(problemOf(cause)))
        ),
        Effect.tapError((problem) => watch.failed(csv, problem)),
        (effect) =>
          settings.once
            ? effect
            : Effect.retry(
                effect,
                backoff(settings.retryEvery).pipe(
                  Schedule.delays,
                  Schedule.tapOutput((delay) => watch.nextTry(csv, delay))
                )
              ),
        Effect.annotateLogs({ job: csv }),
        Effect.ensuring(Ref.update(running, (files) => new Set([...files].filter((file) => file !== csv)))),
        Effect.catchAllCause(() => Effect.void)
      )

    /** Starts the file's job unless it already runs here (looked at and marked in one step). */
    const start = (csv: string) =>
      Effect.flatMap(
        Ref.modify(running, (files) => (files.has(csv) ? [false, files] as const : [true, new Set(files).add(csv)] as const)),
        (fresh) => (fresh ? FiberSet.run(jobs, handle(csv)).pipe(Effect.asVoid) : Effect.void)
      )

    /** One pass over the folder: resume processing/, claim what is ready (when the schedule allows). */
    const scan = Effect.gen(function* () {
      yield* ensureFolders(folder)
      const now = yield* Clock.currentTimeMillis
      for (const name of yield* batchFilesIn(folder.processing)) {
        const csv = join(folder.processing, name)
        if (!settings.once && ((yield* Ref.get(retryAt)).get(csv) ?? 0) > now) continue
        yield* start(csv)
      }
      const { ready, waiting, prints } = yield* arrivals.ready(folder.root)
      const open = settings.once || settings.schedule === undefined || (yield* settings.schedule.due)
      let claimed = 0
      if (open) yield* Ref.set(toldToWait, new Set())
      else if (settings.schedule !== undefined) {
        const told = yield* Ref.get(toldToWait)
        const fresh = ready.filter((name) => !told.has(name))
        if (fresh.length > 0) {
          yield* tellWatch(WatchEvent.WaitingForSchedule({ names: fresh, nextRun: yield* settings.schedule.nextAt, timeZone: settings.schedule.timeZone }))
        }
        yield* Ref.set(toldToWait, new Set([...told, ...fresh]))
      }
      if (open) {
        for (const name of ready) {
          const target = yield* take(folder, name, prints.get(name))
          if (Option.isNone(target)) continue
          claimed += 1
          if (target.value.why !== undefined) yield* renames.claimed(target.value.path, name, target.value.why)
          yield* start(target.value.path)
        }
      }
      yield* watch.scanned({ now, open, claimed, waiting: waiting + ready.length - claimed, running: yield* Ref.get(running) })
      yield* recountNow
    })

    return {
      scan,
      /** Resolves when no job is running. */
      idle: FiberSet.awaitEmpty(jobs),
      health,
      /** How many batches this process sent to attention/ (a person must act). */
      attentionHere: Ref.get(attentionHere),
      /** Files the machine kept from running in this process (exit 4 of `--once`). */
      internalFailures: watch.internalFailures,
      /** Files still in processing/ (incomplete, paused or failed). */
      leftInProcessing: Effect.map(batchFilesIn(folder.processing), (names) => names.length)
    } as const
  })

/** The daemon: a scan every `every`, forever (until interrupted). */
export const watchForever = <E, R>(watcher: { readonly scan: Effect.Effect<void, E, R> }, every: Duration.Duration) =>
  watcher.scan.pipe(
    Effect.catchAllCause((cause) => tellWatch(WatchEvent.ScanFailed({ cause }))),
    Effect.zipRight(Effect.sleep(every)),
    Effect.forever
  )

/** `--once`: one pass, then wait for every job it started. */
export const watchOnce = <E, R>(watcher: { readonly scan: Effect.Effect<void, E, R>; readonly idle: Effect.Effect<void> }) =>
  Effect.zipRight(watcher.scan, watcher.idle)
