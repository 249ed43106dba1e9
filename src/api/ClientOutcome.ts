// What a classified answer becomes once no retry is left, and its outcome for the request metric.
import { Either } from "effect"
import type { Transient } from "./Classify.ts"
import { type ClientError, NotSent, RateLimited, Unavailable } from "./Errors.ts"
import type { Outcome } from "../observe/Metrics.ts"

export const finalOf = (t: Transient): ClientError =>
  t.rateLimited
    ? new RateLimited({ retryAfterMs: t.retryAfterMs })
    : t.notSent
    ? new NotSent({ reason: t.reason })
    : new Unavailable({ reason: t.reason, status: t.status })

export const isTransient = (e: ClientError | Transient): e is Transient => e._tag === "Transient"

/** A classified answer as the request metric's outcome (observe/Metrics.ts). */
export const OUTCOME_OF: Record<(ClientError | Transient)["_tag"], Outcome> = {
  AuthError: "auth_error",
  ValidationError: "rejected",
  InsufficientBalance: "rejected",
  PayinRefused: "rejected",
  NotFound: "not_found",
  RateLimited: "rate_limited",
  // A GET's 5xx or 408; a POST's 5xx is an OutcomeUnknown, told apart by its status below.
  Transient: "server_error",
  OutcomeUnknown: "unexpected",
  UnexpectedResponse: "unexpected",
  NotSent: "unexpected",
  Unavailable: "unexpected"
}
export const outcomeOf = (result: Either.Either<unknown, ClientError | Transient>, status: number): Outcome =>
  Either.isRight(result) ? "ok" : status === 429 ? "rate_limited" : status >= 500 ? "server_error" : OUTCOME_OF[result.left._tag]
