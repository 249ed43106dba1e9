/**
 * Progress while a batch runs, as notices: the command line shows them as a live line on a terminal
 * and as plain `progress:` lines otherwise (on stderr, so `--json` on stdout stays clean).
 */
import { Clock, Context, type Duration, Effect, Layer, Ref } from "effect"
import { IN_FLIGHT_STATES, type RowState, SENT_STATES, SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { progress } from "./Notices.ts"
import { RunContext } from "./RunContext.ts"

const make = Effect.gen(function* () {
  const { batchStore } = yield* RunContext

  /** Reports the batch's counts and rate every `every`, until interrupted (then ends the live line). */
  const report = Effect.fn("Progress.report")(function* (every: Duration.Duration) {
    const start = yield* Clock.currentTimeMillis
    const last = yield* Ref.make({ at: start, sent: 0 })
    const once = Effect.gen(function* () {
      const c = yield* batchStore.countByState()
      const now = yield* Clock.currentTimeMillis
      const sum = (states: ReadonlyArray<RowState>) => states.reduce((n, s) => n + c[s], 0)
      const sent = sum(SENT_STATES)
      const prev = yield* Ref.getAndSet(last, { at: now, sent })
      const rate = now > prev.at ? ((sent - prev.sent) * 1000) / (now - prev.at) : 0
      const todo = c.validated + c.submitting
      const eta = rate > 0 && todo > 0 ? ` eta ${Math.ceil(todo / rate)}s` : ""
      const line =
        `submitted ${sent}/${sent + todo} | completed ${c.completed} | failed ${sum(SETTLED_FAILURE_STATES)}` +
        ` | pending ${sum(IN_FLIGHT_STATES)} | unknown ${c.unknown} | skipped ${c.skipped} | ${rate.toFixed(1)}/s${eta}`
      yield* progress(line)
    })
    yield* Effect.ensuring(
      Effect.forever(Effect.zipRight(Effect.sleep(every), once.pipe(Effect.ignore))),
      progress("", true)
    )
  })

  return { report } as const
})

/** The run's periodic progress line. */
export class Progress extends Context.Tag("run/Progress")<Progress, Effect.Effect.Success<typeof make>>() {
  static readonly layer: Layer.Layer<Progress, never, RunContext> = Layer.effect(Progress, make)
}
