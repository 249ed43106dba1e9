/**
 * A batch that could not be run because of the service (unreachable, 5xx, a refused key), not
 * because of anything in its file. The runner turns a failed balance preflight into a refusal (exit 2);
 * in the job folder that refusal must not send a good file to `rejected/` (issue 12, item 2), so a run
 * has its client calls watched (FailureWatch) and a refusal that followed a service failure becomes this error:
 * the file stays in `processing/` and is tried again with backoff.
 */
import { Data, Effect, Option, Ref } from "effect"
import { FailureWatch } from "../api/FailureWatch.ts"
import type { ClientError } from "../api/Errors.ts"
import { EXIT_REFUSED } from "../run/ExitCode.ts"
import type { RunResult } from "../run/RunRequest.ts"

export type ServiceProblemKind = "unreachable" | "server-error" | "auth" | "rate-limited" | "unexpected"

/** What the service did, as facts the command line words (src/cli/ServiceText.ts), in logs and in health's `reason`. */
export type ServiceTrouble = Data.TaggedEnum<{
  /** `advice`: where the key came from, when the command knows (else the general advice). */
  RefusedKey: { readonly message: string; readonly advice: string | undefined }
  Unreachable: { readonly reason: string }
  /** An HTTP 5xx (or an answer the client found unusable) with the client's reason. */
  ServerError: { readonly status: number; readonly reason: string }
  NoAnswer: { readonly reason: string }
  RateLimited: { readonly message: string }
  /** An answer no rule expected: its status and an excerpt of its body. */
  Answered: { readonly status: number; readonly excerpt: string }
  Failed: { readonly message: string }
}>
export const ServiceTrouble = Data.taggedEnum<ServiceTrouble>()

export class ServiceProblem extends Data.TaggedError("ServiceProblem")<{
  readonly kind: ServiceProblemKind
  readonly trouble: ServiceTrouble
}> {}

/** The service's failures that say nothing about the rows sent: None for a refusal of a request itself. */
export const serviceProblemOf = (error: ClientError): Option.Option<ServiceProblem> => {
  switch (error._tag) {
    case "AuthError":
      return Option.some(new ServiceProblem({ kind: "auth", trouble: ServiceTrouble.RefusedKey({ message: error.message, advice: undefined }) }))
    case "NotSent":
      return Option.some(new ServiceProblem({ kind: "unreachable", trouble: ServiceTrouble.Unreachable({ reason: error.reason }) }))
    case "Unavailable":
      return Option.some(
        error.status !== undefined && error.status >= 500
          ? new ServiceProblem({ kind: "server-error", trouble: ServiceTrouble.ServerError({ status: error.status, reason: error.reason }) })
          : new ServiceProblem({ kind: "unreachable", trouble: ServiceTrouble.Unreachable({ reason: error.reason }) })
      )
    case "OutcomeUnknown":
      return Option.some(new ServiceProblem({ kind: "unreachable", trouble: ServiceTrouble.NoAnswer({ reason: error.reason }) }))
    case "RateLimited":
      return Option.some(new ServiceProblem({ kind: "rate-limited", trouble: ServiceTrouble.RateLimited({ message: error.message }) }))
    case "UnexpectedResponse":
      return Option.some(
        new ServiceProblem({ kind: error.status >= 500 ? "server-error" : "unexpected", trouble: ServiceTrouble.Answered({ status: error.status, excerpt: error.excerpt }) })
      )
    default:
      return Option.none()
  }
}

/**
 * Runs `run` with its client calls watched. A run that refused its file (exit 2) after the service failed
 * refused it for the service's sake, not the file's: it fails with the ServiceProblem instead.
 */
export const refusalsOfTheService = <E, R>(run: Effect.Effect<RunResult, E, R>) =>
  Effect.gen(function* () {
    const last = yield* Ref.make(Option.none<ServiceProblem>())
    const watch = (e: ClientError) => Ref.update(last, (previous) => Option.orElse(serviceProblemOf(e), () => previous))
    const result = yield* Effect.provideService(run, FailureWatch, watch)
    const problem = yield* Ref.get(last)
    if (result.exitCode === EXIT_REFUSED && Option.isSome(problem)) return yield* Effect.fail(problem.value)
    return result
  })
