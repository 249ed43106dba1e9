/**
 * The daemon's health: a periodic log line, and with `--health HOST:PORT` an endpoint answering
 * `GET /health` with the same figures as JSON (200 while the scan loop is alive, 503 once it is late).
 */
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Clock, DateTime, Duration, Effect, Ref } from "effect"
import { createServer } from "node:http"

export interface HealthState {
  readonly startedAt: number
  readonly lastScanAt: number
  readonly waiting: number
  readonly running: number
  readonly held: number
  readonly done: number
  readonly rejected: number
  readonly awaitingApproval: number
  readonly incomplete: number
  /** Batches moved to attention/: a person must act (payouts resolve). */
  readonly attention: number
  readonly nextScheduledAt: number | undefined
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
    nextScheduledAt: undefined
  })
)

const iso = (ms: number) => DateTime.formatIso(DateTime.unsafeMake(ms))

export const healthReport = (state: HealthState, now: number, lateAfterMs: number) => ({
  status: now - state.lastScanAt <= lateAfterMs ? "ok" : "stalled",
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
  ...(state.nextScheduledAt === undefined ? {} : { next_scheduled_at: iso(state.nextScheduledAt) })
})

/** Logs one health line every `every`, until interrupted. */
export const logHealth = (health: Ref.Ref<HealthState>, every: Duration.Duration, lateAfterMs: number) =>
  Effect.gen(function* () {
    const report = healthReport(yield* Ref.get(health), yield* Clock.currentTimeMillis, lateAfterMs)
    yield* Effect.logInfo("health").pipe(Effect.annotateLogs(report))
  }).pipe(Effect.delay(every), Effect.forever)

/** Serves GET /health on host:port for the life of the scope; returns the URL. */
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
      )
    )
    yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, server))
    const address = server.address
    return `http://${listen.host}:${address._tag === "TcpAddress" ? address.port : listen.port}/health`
  })
