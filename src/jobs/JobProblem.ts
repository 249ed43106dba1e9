/** Why a job could not be taken to its next place, and when it is tried again. */
import { Cause, Duration, Option, Schedule } from "effect"
import { ServiceProblem, type ServiceTrouble } from "./ServiceProblem.ts"

/** Why a job could not be taken to its next place: kept in processing/ and tried again. */
export type JobProblem =
  | { readonly kind: "service"; readonly trouble: ServiceTrouble }
  | { readonly kind: "internal"; readonly reason: string }

export const problemOf = (cause: Cause.Cause<unknown>): JobProblem => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof ServiceProblem) return { kind: "service", trouble: failure.value.trouble }
  const error = Cause.squash(cause)
  return { kind: "internal", reason: error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error) }
}

/**
 * Backoff for a file the service or the machine kept from running: from a second (or `retryEvery`,
 * when shorter) doubling, jittered, never longer apart than `retryEvery`.
 */
export const backoff = (retryEvery: Duration.Duration) =>
  Schedule.exponential(Duration.min(Duration.seconds(1), retryEvery)).pipe(Schedule.jittered, Schedule.union(Schedule.spaced(retryEvery)))
