/**
 * `--schedule "CRON"`: waiting files are held until the next scheduled time, then everything waiting
 * is taken at once (scheduled disbursement runs). Time comes from the Clock, so TestClock drives it.
 */
import { Clock, Cron, Data, Effect, Either, Ref } from "effect"

export class ScheduleError extends Data.TaggedError("ScheduleError")<{ readonly message: string }> {}

export interface CronGate {
  readonly expression: string
  /** True once per scheduled time that has come (then the next one is set). */
  readonly due: Effect.Effect<boolean>
  readonly nextAt: Effect.Effect<Date>
}

export const parseSchedule = (expression: string, timeZone?: string) =>
  Either.match(Cron.parse(expression, timeZone), {
    onLeft: (error) => Effect.fail(new ScheduleError({ message: `--schedule "${expression}": ${error.message}` })),
    onRight: Effect.succeed
  })

export const makeCronGate = (expression: string, timeZone?: string) =>
  Effect.gen(function* () {
    const cron = yield* parseSchedule(expression, timeZone)
    const next = yield* Ref.make(Cron.next(cron, new Date(yield* Clock.currentTimeMillis)))
    const due = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const at = yield* Ref.get(next)
      if (now < at.getTime()) return false
      yield* Ref.set(next, Cron.next(cron, new Date(now)))
      return true
    })
    return { expression, due, nextAt: Ref.get(next) } satisfies CronGate
  })
