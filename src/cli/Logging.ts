/**
 * `--log-format text|json` for the daemon. In JSON mode the runner's own messages (written with
 * Console) become log records too, so every line on the output is one JSON object, and a record's
 * facts (its annotations: `batch_id`, `file`, `exit_code`, `counts`, ...) are fields of that object,
 * for a log pipeline to filter on without parsing the message.
 */
import type { Console } from "effect"
import { Cause, Effect, HashMap, Inspectable, Layer, Logger } from "effect"
import { maskUrlPasswords } from "../domain/Secrets.ts"

export type LogFormat = "text" | "json"

const messageText = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((part) => (typeof part === "string" ? part : Inspectable.format(part))).join(" ")

/** One JSON object per record: time, level, message, then each annotation as a field of its own. */
export const flatJsonLogger = Logger.make(({ annotations, cause, date, logLevel, message }) =>
  JSON.stringify({
    timestamp: date.toISOString(),
    logLevel: logLevel.label,
    message: messageText(message),
    ...Object.fromEntries(HashMap.toEntries(annotations)),
    ...(Cause.isEmpty(cause) ? {} : { cause: Cause.pretty(cause) })
  })
)

// A store URL (or any URL) in a record keeps its user, never its password.
const maskPart = (part: unknown) => (typeof part === "string" ? maskUrlPasswords(part) : part)
const masked = (message: unknown): unknown => (Array.isArray(message) ? message.map(maskPart) : maskPart(message))

/** Replaces whichever console logger is installed (the runtime's pretty one included) by the chosen format. */
export const loggerLayer = (format: LogFormat): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.remove(Logger.defaultLogger),
    Logger.remove(Logger.prettyLoggerDefault),
    Logger.add(Logger.withConsoleLog(Logger.mapInput(format === "json" ? flatJsonLogger : Logger.logfmtLogger, masked)))
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
