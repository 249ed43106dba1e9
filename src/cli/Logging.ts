/**
 * `--log-format text|json` for the daemon. In JSON mode the runner's own messages (written with
 * Console) become log records too, so every line on the output is one JSON object.
 */
import type { Console } from "effect"
import { Effect, Layer, Logger } from "effect"

export type LogFormat = "text" | "json"

/** Replaces whichever console logger is installed (the runtime's pretty one included) by the chosen format. */
export const loggerLayer = (format: LogFormat): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.remove(Logger.defaultLogger),
    Logger.remove(Logger.prettyLoggerDefault),
    Logger.add(Logger.withConsoleLog(format === "json" ? Logger.jsonLogger : Logger.logfmtLogger))
  )

// The progress line's carriage return and erase-line escape mean nothing in a log record.
// eslint-disable-next-line no-control-regex
const text = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a : String(a))).join(" ").replace(/^\r|\x1b\[K/g, "")

/** A Console whose messages go to the logger (the logger itself still writes to the real console). */
export const consoleToLogs: Effect.Effect<Console.Console> = Effect.map(Effect.console, (base) => ({
  ...base,
  log: (...args: ReadonlyArray<unknown>) => Effect.logInfo(text(args)),
  info: (...args: ReadonlyArray<unknown>) => Effect.logInfo(text(args)),
  error: (...args: ReadonlyArray<unknown>) => Effect.logInfo(text(args)),
  warn: (...args: ReadonlyArray<unknown>) => Effect.logWarning(text(args))
}))

/** Runs `effect` with logs in `format`; in JSON mode Console output is routed to the logger. */
export const withLogFormat =
  (format: LogFormat) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    format === "json"
      ? Effect.flatMap(consoleToLogs, (console) => Effect.withConsole(effect, console)).pipe(Effect.provide(loggerLayer(format)))
      : effect.pipe(Effect.provide(loggerLayer(format)))
