/**
 * The daemon's health: a periodic log line, and with `--health HOST:PORT` an endpoint answering
 * `GET /health` with the same figures as JSON: 200 while all is well; 503 once the scan loop is late
 * (`stalled`) or while the service or the machine keeps files from running (`degraded`, with why).
 * The counts are the folder's as it is (files in done/, awaiting-approval/, ...), looked at on every
 * scan and at the end of every job: an approval given by another process shows at the next scan.
 * A scheduled time is shown in the schedule's zone, with its offset. The same port answers
 * `GET /metrics` (observe/Prometheus.ts) once the account is known.
 */
import type { Halt } from "../store/AccountModel.ts"
import type { AccountId } from "../domain/Ids.ts"
import { metricsRoute } from "../observe/Prometheus.ts"
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import type { Duration } from "effect"
import { Clock, DateTime, Effect, Ref } from "effect"
import { join } from "node:path"
import { isoIn, shownIn } from "./CronGate.ts"
import { batchFilesIn, type JobFolder } from "./JobFolder.ts"
import { createServer } from "node:http"

/** Why a file stays in processing/: the service, the machine (internal), or its own run (incomplete, held). */
export interface KeptFile {
  readonly kind: "service" | "internal" | "incomplete" | "held"
  readonly reason: string
  readonly since: number
  readonly attempts: number
  readonly nextTryAt?: number
}

export interface HealthState {
  readonly startedAt: number
  readonly lastScanAt: number
  /** Complete files in the folder not yet taken (waiting for `--schedule`, or for the next scan). */
  readonly waiting: number
  /** The counts below are the folder's as it is now (`recount`), not events added up since start. */
  readonly running: number
  readonly held: number
  readonly done: number
  readonly rejected: number
  readonly awaitingApproval: number
  readonly incomplete: number
  /** Batches moved to attention/: a person must act (payouts resolve). */
  readonly attention: number
  readonly nextScheduledAt: number | undefined
  /** The zone `--schedule` is read in, its times shown in. */
  readonly timeZone?: string | undefined
  /** The last failure of the service (unreachable, 5xx, a refused key), until a call succeeds again. */
  readonly service: { readonly reason: string; readonly since: number } | undefined
  /** Files kept in processing/, by path, with why. */
  readonly kept: Readonly<Record<string, KeptFile>>
  /** The account's halt in force (`payouts halt`), as of the last scan: no new payout leaves. */
  readonly halt?: Halt | undefined
  /** The account whose rows /metrics counts: known once the service said whose key this is. */
  readonly accountId?: AccountId | undefined
}

export const makeHealth = Effect.flatMap(Clock.currentTimeMillis, (now) =>
  Ref.make<HealthState>({
    startedAt: now,
    lastScanAt: now,
    waiting: 0,
    running: 0,
    held: 0,
    done: 0,
    rejected: 0,
    awaitingApproval: 0,
    incomplete: 0,
    attention: 0,
    nextScheduledAt: undefined,
    service: undefined,
    kept: {}
  })
)

/** Records (or clears, with undefined) why `file` stays in processing/. */
export const keep = (health: Ref.Ref<HealthState>, file: string, why: Omit<KeptFile, "since" | "attempts"> | undefined) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Ref.update(health, (h) => {
      const { [file]: previous, ...others } = h.kept
      if (why === undefined) return previous === undefined ? h : { ...h, kept: others }
      const same = previous !== undefined && previous.kind === why.kind
      const entry: KeptFile = { ...why, since: same ? previous.since : now, attempts: same ? previous.attempts + 1 : 1 }
      return { ...h, kept: { ...others, [file]: entry } }
    })
  )

/** When the next try of a kept file is due. */
export const nextTry = (health: Ref.Ref<HealthState>, file: string, at: number) =>
  Ref.update(health, (h) => {
    const entry = h.kept[file]
    return entry === undefined ? h : { ...h, kept: { ...h.kept, [file]: { ...entry, nextTryAt: at } } }
  })

/** Records (or clears) the service's failure. */
export const serviceIs = (health: Ref.Ref<HealthState>, reason: string | undefined) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Ref.update(health, (h) =>
      reason === undefined
        ? h.service === undefined ? h : { ...h, service: undefined }
        : { ...h, service: { reason, since: h.service?.reason === reason ? h.service.since : now } }
    )
  )

/**
 * Health's counts as the folder is now: another process (`payouts approve`, a person moving a file
 * back) changes it too, so they are looked at, never added up. `running` and `held` are the watcher's
 * jobs by path in processing/; one whose file has left it is over, whatever its fiber still tidies.
 * Returns the paths in processing/.
 */
export const recount = (health: Ref.Ref<HealthState>, folder: JobFolder, running: ReadonlySet<string>, held: ReadonlyMap<string, unknown>) =>
  Effect.gen(function* () {
    const [inProcessing, done, rejected, awaiting, attention] = yield* Effect.all(
      [folder.processing, folder.done, folder.rejected, folder.awaiting, folder.attention].map((dir) => batchFilesIn(dir))
    )
    const present: ReadonlySet<string> = new Set(inProcessing.map((name) => join(folder.processing, name)))
    yield* Ref.update(health, (h) => {
      const kept = Object.fromEntries(Object.entries(h.kept).filter(([csv]) => present.has(csv)))
      return {
        ...h,
        kept,
        running: [...running].filter((csv) => present.has(csv)).length,
        held: [...held.keys()].filter((csv) => present.has(csv)).length,
        incomplete: Object.values(kept).filter((k) => k.kind === "incomplete").length,
        done: done.length,
        rejected: rejected.length,
        awaitingApproval: awaiting.length,
        attention: attention.length
      }
    })
    return present
  })

/** Files the service or the machine keeps from running. */
const blocked = (state: HealthState) => Object.values(state.kept).filter((k) => k.kind === "service" || k.kind === "internal").length

const iso = (ms: number) => DateTime.formatIso(DateTime.unsafeMake(ms))

export const healthReport = (state: HealthState, now: number, lateAfterMs: number) => ({
  // While the service is out the loop may be waiting on it: degraded says why better than stalled.
  status: state.halt !== undefined
    ? "halted"
    : state.service !== undefined || blocked(state) > 0 ? "degraded" : now - state.lastScanAt > lateAfterMs ? "stalled" : "ok",
  started_at: iso(state.startedAt),
  last_scan_at: iso(state.lastScanAt),
  uptime_s: Math.round((now - state.startedAt) / 1000),
  waiting: state.waiting,
  running: state.running,
  held: state.held,
  done: state.done,
  rejected: state.rejected,
  awaiting_approval: state.awaitingApproval,
  incomplete: state.incomplete,
  attention: state.attention,
  ...(state.halt === undefined ? {} : { halted: { by: state.halt.by, at: iso(state.halt.at), reason: state.halt.reason } }),
  ...(state.service === undefined ? {} : { service_problem: { reason: state.service.reason, since: iso(state.service.since) } }),
  kept_in_processing: Object.entries(state.kept).map(([file, k]) => ({
    file,
    kind: k.kind,
    reason: k.reason,
    since: iso(k.since),
    attempts: k.attempts,
    ...(k.nextTryAt === undefined ? {} : { next_try_at: iso(k.nextTryAt) })
  })),
  ...(state.nextScheduledAt === undefined
    ? {}
    : {
      next_scheduled_at: isoIn(new Date(state.nextScheduledAt), state.timeZone ?? "UTC"),
      next_run: shownIn(new Date(state.nextScheduledAt), state.timeZone ?? "UTC")
    })
})

/** Logs one health line every `every`, until interrupted. */
export const logHealth = (health: Ref.Ref<HealthState>, every: Duration.Duration, lateAfterMs: number) =>
  Effect.gen(function* () {
    const report = healthReport(yield* Ref.get(health), yield* Clock.currentTimeMillis, lateAfterMs)
    yield* Effect.logInfo("health").pipe(Effect.annotateLogs(report))
  }).pipe(Effect.delay(every), Effect.forever)

/** Serves GET /health (and GET /metrics) on host:port for the life of the scope; returns the /health URL. */
export const serveHealth = (health: Ref.Ref<HealthState>, listen: { readonly host: string; readonly port: number }, lateAfterMs: number) =>
  Effect.gen(function* () {
    const server = yield* NodeHttpServer.make(() => createServer(), { host: listen.host, port: listen.port })
    const app = HttpRouter.empty.pipe(
      HttpRouter.get(
        "/health",
        Effect.gen(function* () {
          const report = healthReport(yield* Ref.get(health), yield* Clock.currentTimeMillis, lateAfterMs)
          return yield* HttpServerResponse.json(report, { status: report.status === "ok" ? 200 : 503 })
        })
      ),
      HttpRouter.get("/metrics", Effect.flatMap(Ref.get(health), (state) => metricsRoute(state.accountId)))
    )
    yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
    const address = server.address
    return `http://${listen.host}:${address._tag === "TcpAddress" ? address.port : listen.port}/health`
  })
