/**
 * What a run tells a person while it goes: messages, warnings and progress. The pipeline emits them;
 * the command line renders them (src/cli/Notices.ts: stderr, a live line on a terminal, log records
 * under `watch --log-format json`). Nothing in the pipeline prints. Without a renderer (tests, the
 * bench, a library caller) they are dropped.
 */
import { Context, Effect } from "effect"
import type { Outcome } from "./Outcome.ts"

/** Where a run stands: the figures only; src/cli/Notices.ts draws them (a bar, or a plain line). */
export interface ProgressFigures {
  /** Submitting while rows are left to send; then tracking the sent rows to a final status. */
  readonly phase: "submitting" | "tracking"
  /** Rows sent of the rows to send (submitting), or sent rows final of the rows sent (tracking). */
  readonly done: number
  readonly of: number
  /** The phase's rows per second, over the last seconds; 0 when nothing moved. */
  readonly rate: number
  /** What the phase has left at that rate; undefined when the rate is 0 or nothing is left. */
  readonly etaMs: number | undefined
  readonly elapsedMs: number
  readonly completed: number
  readonly failed: number
  readonly cancelled: number
  readonly expired: number
  readonly refunded: number
  /** Sent and answered, no final status yet. */
  readonly pending: number
  readonly unknown: number
  readonly skipped: number
}

export type Notice =
  /**
   * `outcome`: how the run ends, which `payouts run` tells again in its closing line (cli/Closing.ts):
   * it drops this message when it prints that line; `watch` and `--json` runs keep it.
   */
  | { readonly _tag: "Message"; readonly text: string; readonly outcome?: true }
  /** A periodic figure of the run. */
  | { readonly _tag: "Progress"; readonly figures: ProgressFigures }
  /** The run stopped reporting: a live line ends there. */
  | { readonly _tag: "ProgressEnd" }
  /**
   * How the run ended, told as it ends (Ctrl-C included, when no result reaches the caller): `payouts
   * run` closes with it (cli/Closing.ts); other renderers let it pass.
   */
  | { readonly _tag: "Ended"; readonly exitCode: number; readonly outcome: Outcome; readonly summary: Readonly<Record<string, unknown>> }

export interface NoticeSink {
  readonly emit: (notice: Notice) => Effect.Effect<void>
}

export class Notices extends Context.Reference<Notices>()("run/Notices", {
  defaultValue: (): NoticeSink => ({ emit: () => Effect.void })
}) {}

/** A message for the person running the batch (one line, or a few). */
export const say = (text: string): Effect.Effect<void> => Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Message", text }))

/** A message that says how the run ends (see `outcome` above): not said twice where a closing line follows. */
export const sayOutcome = (text: string): Effect.Effect<void> =>
  Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Message", text, outcome: true }))

export const progress = (figures: ProgressFigures): Effect.Effect<void> =>
  Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Progress", figures }))

export const progressEnd: Effect.Effect<void> = Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "ProgressEnd" }))

/** Tells how the run ended (see the `Ended` notice). */
export const ended = (result: { readonly exitCode: number; readonly outcome: Outcome; readonly summary: Readonly<Record<string, unknown>> }): Effect.Effect<void> =>
  Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Ended", exitCode: result.exitCode, outcome: result.outcome, summary: result.summary }))
