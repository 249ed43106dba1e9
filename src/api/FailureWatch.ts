// The watch told of every failed call where it is provided, and the wrapping that tells it: built once
// per operation when the client is made, not per call.
import { Context, Effect, Option } from "effect"
import type { ClientError } from "./Errors.ts"

/**
 * Told of every failure of a call made where it is provided: jobs/ServiceProblem.ts watches one run's
 * calls with it (a concurrent run's failures are not its).
 */
export class FailureWatch extends Context.Tag("api/FailureWatch")<FailureWatch, (error: ClientError) => Effect.Effect<void>>() {}

const watched = Effect.serviceOption(FailureWatch)
export const tellWatch = (error: ClientError) => Effect.flatMap(watched, Option.match({ onNone: () => Effect.void, onSome: (watch) => watch(error) }))
export const told = <Args extends ReadonlyArray<unknown>, A>(call: (...args: Args) => Effect.Effect<A, ClientError>) => (...args: Args) =>
  Effect.tapError(call(...args), tellWatch)
