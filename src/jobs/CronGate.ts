/**
 * `--schedule "CRON"`: waiting files are held until the next scheduled time, then everything waiting
 * is taken at once (scheduled disbursement runs). Time comes from the Clock, so TestClock drives it.
 *
 * The expression is read in one time zone, `--timezone` or else the system's (the TZ variable), fixed
 * at start: the same zone computes the times and shows them (`2026-11-28 06:00 (Africa/Douala,
 * UTC+01:00)`), so what the log says is when the files are taken.
 */
import { Clock, Cron, Data, DateTime, Effect, Either, Option, Ref } from "effect"

/** `--schedule` is not a cron expression (`detail`: the parser's why), or `--timezone` no IANA zone; src/cli words it. */
export class ScheduleError extends Data.TaggedError("ScheduleError")<{
  readonly problem: { readonly _tag: "Expression"; readonly expression: string; readonly detail: string } | { readonly _tag: "Zone"; readonly zone: string }
}> {}

export interface CronGate {
  readonly expression: string
  /** The zone the expression is read in and its times are shown in (an IANA name). */
  readonly timeZone: string
  /** True once per scheduled time that has come (then the next one is set). */
  readonly due: Effect.Effect<boolean>
  readonly nextAt: Effect.Effect<Date>
}

/** The zone of this process: the TZ variable if set, else the system's; UTC when none can be told. */
export const systemTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC"

export const parseSchedule = (expression: string, timeZone?: string) =>
  Either.match(Cron.parse(expression, timeZone ?? systemTimeZone()), {
    onLeft: (error) => Effect.fail(new ScheduleError({ problem: { _tag: "Expression", expression, detail: error.message } })),
    onRight: Effect.succeed
  })

/** `at` in `timeZone`: its ISO form with the zone's offset, e.g. `2026-11-28T06:00:00.000+01:00`. */
export const isoIn = (at: Date, timeZone: string): string => DateTime.formatIsoOffset(DateTime.unsafeMakeZoned(at, { timeZone }))

/** `at` as a person reads it in `timeZone`: `2026-11-28 06:00 (Africa/Douala, UTC+01:00)`. */
export const shownIn = (at: Date, timeZone: string): string => {
  const iso = isoIn(at, timeZone)
  const offset = iso.slice(23)
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} (${timeZone}, UTC${offset === "Z" ? "+00:00" : offset})`
}

export const makeCronGate = (expression: string, timeZone?: string) =>
  Effect.gen(function* () {
    const zone = timeZone ?? systemTimeZone()
    if (Option.isNone(DateTime.zoneFromString(zone))) {
      return yield* new ScheduleError({ problem: { _tag: "Zone", zone } })
    }
    const cron = yield* parseSchedule(expression, zone)
    const next = yield* Ref.make(Cron.next(cron, new Date(yield* Clock.currentTimeMillis)))
    const due = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const at = yield* Ref.get(next)
      if (now < at.getTime()) return false
      yield* Ref.set(next, Cron.next(cron, new Date(now)))
      return true
    })
    return { expression, timeZone: zone, due, nextAt: Ref.get(next) } satisfies CronGate
  })
