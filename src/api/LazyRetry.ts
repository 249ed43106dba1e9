/**
 * `Effect.retry` that starts its schedule only after a first failure. Nearly every call succeeds the
 * first time, and `Effect.retry` builds a schedule driver (refs, a provided iteration metadata) around
 * every attempt even then: about a tenth of the runtime's work per status lookup. The first failure is
 * replayed into the retry, so the delays and the count of tries are exactly `Effect.retry`'s.
 */
import { Effect, type Schedule } from "effect"

export const retryLazily = <A, E, R, Out, RS>(
  self: Effect.Effect<A, E, R>,
  options: { readonly schedule: Schedule.Schedule<Out, E, RS>; readonly while: (error: E) => boolean }
): Effect.Effect<A, E, R | RS> =>
  Effect.catchIf(self, options.while, (first) => {
    let replay = true
    return Effect.retry(
      Effect.suspend(() => {
        if (!replay) return self
        replay = false
        return Effect.fail(first)
      }),
      options
    )
  })
