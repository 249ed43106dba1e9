/**
 * What the watcher tells its health (Health.ts) and the store's heartbeat (Workers.ts): how each job
 * ended or what keeps its file, and each scan's figures. Apart from Watcher.ts, which runs the jobs.
 */
import { Clock, Duration, Effect, Option, Ref } from "effect"
import { basename } from "node:path"
import type { CronGate } from "./CronGate.ts"
import { type HealthState, keep, nextTry, serviceIs } from "./Health.ts"
import type { JobOutcome } from "./JobOutcome.ts"
import { JobNotes } from "./JobNotes.ts"
import type { JobProblem } from "./JobProblem.ts"
import { tellWatch, WatchEvent } from "./WatchEvents.ts"
import { beat, leave } from "./Workers.ts"
import { AccountRecords } from "../store/Sql/Account.ts"
import type { AccountId } from "../domain/Ids.ts"

/** What one scan saw: `waiting` complete files it left unclaimed, `running` the jobs of this process. */
export interface Scanned {
  readonly now: number
  readonly open: boolean
  readonly claimed: number
  readonly waiting: number
  readonly running: ReadonlySet<string>
}

export const makeWatchHealth = (
  settings: { readonly accountId: AccountId; readonly schedule?: CronGate; readonly once: boolean },
  health: Ref.Ref<HealthState>,
  worker: string,
  workerTtlMs: number
) =>
  Effect.gen(function* () {
    yield* Ref.update(health, (h) => ({ ...h, accountId: settings.accountId }))
    const startedAt = yield* Clock.currentTimeMillis
    // Best effort: a heartbeat left behind only shows the worker as lost once its time to live passes.
    yield* Effect.addFinalizer(() => leave(settings.accountId, worker).pipe(Effect.catchAllCause(() => Effect.void)))

    /** A job that ended: what it leaves kept in processing/ (incomplete, held) or nothing. */
    const ended = (csv: string, outcome: JobOutcome) =>
      Effect.gen(function* () {
        // The job got through to the service (or had no need of it): whatever was wrong is over.
        if (outcome._tag !== "Held") yield* serviceIs(health, undefined)
        yield* keep(
          health,
          csv,
          outcome._tag === "Incomplete"
            ? { kind: "incomplete", reason: `exit ${outcome.exitCode}: ${outcome.outcome}` }
            : outcome._tag === "Held"
              ? { kind: "held", reason: outcome.reason }
              : undefined
        )
      })

    const failed = (csv: string, problem: JobProblem) =>
      Effect.gen(function* () {
        const notes = yield* JobNotes
        const reason = problem.kind === "service" ? notes.serviceTrouble(problem.trouble) : problem.reason
        yield* keep(health, csv, { kind: problem.kind, reason })
        if (problem.kind === "service") yield* serviceIs(health, reason)
        yield* tellWatch(WatchEvent.Kept({ problem }))
      })

    /** The end of a scan: the heartbeat, the next scheduled time, the account's halt and what waits. */
    const scanned = ({ claimed, now, open, running, waiting }: Scanned) =>
      Effect.gen(function* () {
        yield* beat(settings.accountId, worker, startedAt, workerTtlMs, [...running].map((csv) => basename(csv))).pipe(
          Effect.catchAll((e) => tellWatch(WatchEvent.HeartbeatUnwritten({ error: String(e) })))
        )
        const nextScheduledAt = settings.schedule === undefined ? undefined : (yield* settings.schedule.nextAt).getTime()
        if (open && settings.schedule !== undefined && !settings.once && nextScheduledAt !== undefined) {
          yield* tellWatch(WatchEvent.ScheduledTime({ claimed, nextRun: new Date(nextScheduledAt), timeZone: settings.schedule.timeZone }))
        }
        // The account's halt, for health: the runners read it themselves before every payout.
        const halt = yield* AccountRecords.pipe(Effect.flatMap((records) => records.activeHalt(settings.accountId)), Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))
        if (halt !== undefined && (yield* Ref.get(health)).halt === undefined) {
          yield* tellWatch(WatchEvent.AccountHalted({ halt }))
        }
        yield* Ref.update(health, (h) => ({
          ...h,
          halt,
          lastScanAt: now,
          waiting,
          nextScheduledAt,
          ...(settings.schedule === undefined ? {} : { timeZone: settings.schedule.timeZone })
        }))
      })

    return {
      ended,
      failed,
      scanned,
      /** When a job kept by a problem is tried again. */
      nextTry: (csv: string, delay: Duration.Duration) => Effect.flatMap(Clock.currentTimeMillis, (now) => nextTry(health, csv, now + Duration.toMillis(delay))),
      /** Files the machine kept from running in this process (exit 4 of `--once`). */
      internalFailures: Effect.map(Ref.get(health), (h) => Object.values(h.kept).filter((k) => k.kind === "internal").length)
    } as const
  })
