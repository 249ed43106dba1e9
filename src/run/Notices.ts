/**
 * What a run tells a person while it goes: messages, warnings and progress. The pipeline emits them;
 * the command line renders them (src/cli/Notices.ts: stderr, a live line on a terminal, log records
 * under `watch --log-format json`). Nothing in the pipeline prints. Without a renderer (tests, the
 * bench, a library caller) they are dropped.
 */
import { Context, Effect } from "effect"

export type Notice =
  | { readonly _tag: "Message"; readonly text: string }
  /** A periodic figure of the run; `final` when the run stops reporting (a live line ends there). */
  | { readonly _tag: "Progress"; readonly text: string; readonly final?: boolean }

export interface NoticeSink {
  readonly emit: (notice: Notice) => Effect.Effect<void>
}

export class Notices extends Context.Reference<Notices>()("run/Notices", {
  defaultValue: (): NoticeSink => ({ emit: () => Effect.void })
}) {}

/** A message for the person running the batch (one line, or a few). */
export const say = (text: string): Effect.Effect<void> => Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Message", text }))

export const progress = (text: string, final = false): Effect.Effect<void> =>
  Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Progress", text, final }))
