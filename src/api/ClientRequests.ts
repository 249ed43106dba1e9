// One request of the client, built once per connection: base URL and credentials, the request gate, the
// timeout, the answer read, classified and counted; GETs retry transient failures, POSTs never do.
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, FiberRef, Option, Redacted, Ref, Schedule } from "effect"
import { classify, type Endpoint, failureWithoutAnswer, makeScrub, TimedOut, type Transient } from "./Classify.ts"
import { PAGE_MAX_BYTES, readAnswer, RECORD_MAX_BYTES } from "./ClientAnswer.ts"
import { FENCED } from "./ClientApi.ts"
import { PaymentClientConfig } from "./ClientConfig.ts"
import { finalOf, isTransient, outcomeOf } from "./ClientOutcome.ts"
import { type ClientError, NotSent } from "./Errors.ts"
import { RequestGate } from "./RequestGate.ts"
import { parseRetryAfter } from "./RetryAfter.ts"
import { retryAfterFailure } from "./Retrying.ts"
import { makeServiceClock, observeClock } from "./ServiceClock.ts"
import { recordRequest, routeMetrics } from "../observe/Metrics.ts"

/** The connection's request chain: `getJson` and `postJson`, and what the client's operations read beside them. */
export const makeRequests = Effect.gen(function*() {
  const settings = yield* PaymentClientConfig
  const gate = yield* RequestGate
  const base = settings.baseUrl
  const baseUrl = new URL(URL.canParse(base) ? base : "http://invalid.invalid")
  const scrub = makeScrub([Redacted.value(settings.apiKey), Redacted.value(settings.apiSecret)])
  const headers = {
    accept: "application/json",
    "x-api-key": Redacted.value(settings.apiKey),
    "x-api-secret": Redacted.value(settings.apiSecret)
  }
  const connection = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest((request) => HttpClientRequest.setHeaders(HttpClientRequest.prependUrl(request, base), headers))
  )
  // No span per request, hence no trace headers sent to the service (they come from the span). With
  // the tracer off where the client is built (no OTLP endpoint: cli/Traces.ts) there is none to turn
  // off; the setting is an Effect.locally, about 22 operations a request, only paid when tracing.
  const http = (yield* FiberRef.get(FiberRef.currentTracerEnabled)) ? HttpClient.withTracerDisabledWhen(connection, () => true) : connection
  // Built once: Effect.retry given options builds its schedule again on every call.
  const retryPolicy = Schedule.exponential(settings.getRetry.base).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(settings.getRetry.times)),
    Schedule.upTo(settings.getRetry.maxElapsed),
    Schedule.whileInput(isTransient)
  )
  const timeout = settings.requestTimeout

  const skew = yield* Ref.make(Option.none<number>())
  // Requests are counted by route template, each route's metrics tagged once here.
  const routes = {
    wallet: routeMetrics("GET /wallet"),
    transactions: routeMetrics("GET /wallet/transactions"),
    summary: routeMetrics("GET /wallet/summary"),
    status: routeMetrics("GET /payment/status/{reference}"),
    payout: routeMetrics("POST /payments/payout/mobile-money"),
    payin: routeMetrics("POST /payments/payin/mobile-money"),
    card: routeMetrics("POST /payments/payin/card")
  }
  // A sandbox's declared clock, believed only from this machine (ServiceClock.ts).
  const declared = yield* Ref.make(makeServiceClock(baseUrl))

  /**
   * One request and its whole answer, within the timeout; the wait for the gate is not part of it.
   * Nothing here logs the request, and what leaves it (Classify.ts) carries no header: the
   * credentials cannot reach a log from here, so no redaction setting per request.
   */
  const exchange = (request: HttpClientRequest.HttpClientRequest, maxBytes: number) =>
    http.execute(request).pipe(
      Effect.flatMap((response) => readAnswer(response, maxBytes)),
      Effect.timeoutFail({ duration: timeout, onTimeout: () => new TimedOut(timeout) })
    )

  const attempt = <A>(
    method: "GET" | "POST",
    endpoint: Endpoint,
    request: HttpClientRequest.HttpClientRequest,
    success: (json: unknown) => Option.Option<A>,
    reference?: string,
    mayStillSend?: Effect.Effect<boolean>
  ): Effect.Effect<A, ClientError | Transient> => {
    const maxBytes = endpoint === "transactions" ? PAGE_MAX_BYTES : RECORD_MAX_BYTES
    // Every request is counted and timed here, once: sent (past the gate), then answered or not.
    const route = endpoint === "payin" && request.url.endsWith("/card") ? routes.card : routes[endpoint]
    // One pipe rather than a generator, the clock read from its service: a request's own steps are
    // about a third of the client's Effect operations.
    const send = Effect.clockWith((clock) => {
      const sentMs = clock.unsafeCurrentTimeMillis()
      return Effect.matchEffect(exchange(request, maxBytes), {
        onFailure: (error) =>
          Effect.zipRight(
            recordRequest(route, error._tag === "TimedOut" ? "timeout" : error._tag === "TooLarge" ? "too_large" : "network", (clock.unsafeCurrentTimeMillis() - sentMs) / 1000),
            Effect.fail(failureWithoutAnswer(method, error))
          ),
        onSuccess: (answer) => {
          const nowMs = clock.unsafeCurrentTimeMillis()
          const served = answer.date === undefined ? NaN : Date.parse(answer.date)
          const gateTold = answer.status === 429 ? gate.onRateLimited(Option.getOrUndefined(parseRetryAfter(answer.retryAfter, nowMs))) : gate.onSuccess
          const told = Effect.zipRight(Ref.update(declared, (clock) => observeClock(clock, nowMs, served, answer.clock)), gateTold)
          const result = classify({ method, endpoint, success, nowMs, scrub, reference }, answer)
          return Effect.zipRight(
            // Date has whole seconds: the skew is known to within one second, which the one-minute rule allows.
            Number.isFinite(served) ? Effect.zipRight(Ref.set(skew, Option.some(served - nowMs)), told) : told,
            Effect.zipRight(recordRequest(route, outcomeOf(result, answer.status), (nowMs - sentMs) / 1000), result)
          )
        }
      })
    })
    return mayStillSend === undefined
      ? Effect.zipRight(gate.take, send)
      : Effect.flatMap(gate.takeChecked(mayStillSend), (go) => (go ? send : Effect.fail(new NotSent({ reason: FENCED }))))
  }

  const getJson = <A>(
    endpoint: Endpoint,
    request: HttpClientRequest.HttpClientRequest,
    success: (json: unknown) => Option.Option<A>,
    reference?: string
  ): Effect.Effect<A, ClientError> =>
    attempt("GET", endpoint, request, success, reference).pipe(
      (once) => retryAfterFailure(once, retryPolicy),
      Effect.catchIf(isTransient, (t) => Effect.fail(finalOf(t)))
    )

  const postJson = <A>(
    endpoint: Endpoint,
    path: string,
    body: unknown,
    success: (json: unknown) => Option.Option<A>,
    mayStillSend?: Effect.Effect<boolean>
  ): Effect.Effect<A, ClientError> =>
    // Never retried here: once sent, only reconciliation can tell whether it happened.
    attempt("POST", endpoint, HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(path), body), success, undefined, mayStillSend).pipe(
      Effect.catchIf(isTransient, (t) => Effect.fail(finalOf(t)))
    )

  return { baseUrl, scrub, skew, declared, getJson, postJson } as const
})
