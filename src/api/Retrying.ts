/**
 * Effect.retry, its schedule started by the first failure: a call that succeeds at once (nearly every
 * request) builds no schedule driver and provides no iteration metadata (~33 Effect operations and a
 * copy of the fiber's context per call). The same tries at the same delays.
 */
import { Effect, Option, Ref, type Schedule } from "effect"

export const retryAfterFailure = <A, E, R, Out, R2>(self: Effect.Effect<A, E, R>, policy: Schedule.Schedule<Out, E, R2>): Effect.Effect<A, E, R | R2> =>
  Effect.catchAll(self, (first) =>
    Effect.flatMap(Ref.make(Option.some(first)), (failed) =>
      // The schedule is told of the first failure before any try again, as Effect.retry would tell it.
      Effect.retry(Effect.flatMap(Ref.getAndSet(failed, Option.none()), Option.match({ onNone: () => self, onSome: Effect.fail })), policy)))
