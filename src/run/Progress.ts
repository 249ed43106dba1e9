/**
 * Progress while a batch runs, as typed figures (Notices.ts): the command line draws them as a live
 * bar on a terminal and as plain `progress:` lines otherwise (on stderr, so `--json` stays clean).
 * Two phases: submitting (rows sent of the rows to send), then tracking (sent rows that reached a
 * final status); each has its own rate, measured over the last RATE_WINDOW_MS, and its ETA.
 */
import { Clock, type Duration, Effect, Ref } from "effect"
import { Batches } from "../store/Sql/Batches.ts"
import { IN_FLIGHT_STATES, OUTCOME_STATES, type RowState, SENT_STATES } from "../store/RowState.ts"
import { progress, progressEnd, type ProgressFigures } from "./Notices.ts"
import { RunContext } from "./RunContext.ts"

/** Long enough to smooth bursts, short enough that a stall shows as 0/s (and no ETA) soon. */
const RATE_WINDOW_MS = 15_000

interface Sample {
  readonly at: number
  readonly sent: number
  readonly final: number
}

/** Per second between the oldest and newest sample of the window; 0 when there is no span yet. */
const rateOf = (samples: ReadonlyArray<Sample>, pick: (s: Sample) => number): number => {
  const first = samples[0]
  const last = samples[samples.length - 1]
  return last.at > first.at ? Math.max(0, ((pick(last) - pick(first)) * 1000) / (last.at - first.at)) : 0
}

const make = Effect.gen(function* () {
  const { accountId, batchId } = yield* RunContext
  const batches = yield* Batches

  /** Reports the batch's figures every `every`, until interrupted (then ends the live line). */
  const report = Effect.fn("Progress.report")(function* (every: Duration.Duration) {
    const start = yield* Clock.currentTimeMillis
    const window = yield* Ref.make<ReadonlyArray<Sample>>([])
    const measure = Effect.gen(function* () {
      const c = yield* batches.countByState(accountId, batchId)
      const now = yield* Clock.currentTimeMillis
      const sum = (states: ReadonlyArray<RowState>) => states.reduce((n, s) => n + c[s], 0)
      const sample: Sample = { at: now, sent: sum(SENT_STATES), final: sum(OUTCOME_STATES) }
      const samples = yield* Ref.updateAndGet(window, (all) => [...all.filter((s) => s.at >= now - RATE_WINDOW_MS), sample])
      return { c, now, sum, sample, samples }
    })
    const once = Effect.gen(function* () {
      const { c, now, sample, samples, sum } = yield* measure
      const todo = c.validated + c.submitting
      if (sample.sent + todo === 0) return
      const pending = sum(IN_FLIGHT_STATES)
      const submitting = todo > 0
      const rate = rateOf(samples, submitting ? (s) => s.sent : (s) => s.final)
      const left = submitting ? todo : pending
      const figures: ProgressFigures = {
        phase: submitting ? "submitting" : "tracking",
        done: submitting ? sample.sent : sample.final,
        of: submitting ? sample.sent + todo : sample.sent,
        rate,
        etaMs: rate > 0 && left > 0 ? Math.ceil((left / rate) * 1000) : undefined,
        elapsedMs: now - start,
        completed: c.completed,
        failed: c.failed,
        cancelled: c.cancelled,
        expired: c.expired,
        refunded: c.refunded,
        pending,
        unknown: c.unknown,
        skipped: c.skipped
      }
      yield* progress(figures)
    })
    // The first figures already have a rate: the window starts with the counts at the start.
    yield* Effect.ignore(measure)
    // Once figures were shown, the last ones are read when reporting stops: what stays on screen is the
    // run's end. A run shorter than `every` stays as quiet as before.
    const shown = yield* Ref.make(false)
    const tick = once.pipe(Effect.zipRight(Ref.set(shown, true)), Effect.catchAllCause(() => Effect.void))
    const last = Effect.flatMap(Ref.get(shown), (any) => (any ? Effect.catchAllCause(once, () => Effect.void) : Effect.void))
    yield* Effect.ensuring(Effect.forever(Effect.zipRight(Effect.sleep(every), tick)), Effect.zipRight(last, progressEnd))
  })

  return { report } as const
})

/** The run's periodic progress figures. */
export class Progress extends Effect.Service<Progress>()("run/Progress", { effect: make }) {}
