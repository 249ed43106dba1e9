/**
 * `--log-format text|json` for the daemon. In JSON mode the runner's own messages (written with
 * Console) become log records too, so every line on the output is one JSON object, and a record's
 * facts (its annotations: `batch_id`, `file`, `exit_code`, `counts`, ...) are fields of that object,
 * for a log pipeline to filter on without parsing the message.
 */
import type { Console } from "effect"
import { Cause, Effect, HashMap, Inspectable, Layer, Logger } from "effect"
import { visible } from "../domain/Text.ts"
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

// Line breaks, the progress line's carriage return and erase-line escape are the writer's own.
// eslint-disable-next-line no-control-regex
const OWN_CONTROLS = /(\n|\r|\x1b\[K)/

/**
 * Text for a terminal or a log: every other control or invisible character (a file name's ESC, a
 * U+202E) written `<U+XXXX>`, so a name from outside can neither colour nor hide a line.
 */
export const shown = (text: string): string => text.split(OWN_CONTROLS).map((part, i) => (i % 2 === 1 ? part : visible(part))).join("")

const shownValue = (value: unknown): unknown => (typeof value === "string" ? shown(value) : value)

/** A record's message and annotations shown (see `shown`) before any format renders them. */
const showing = <Output>(logger: Logger.Logger<unknown, Output>) =>
  Logger.mapInputOptions(logger, (options: Logger.Logger.Options<unknown>) => ({
    ...options,
    message: Array.isArray(options.message) ? options.message.map(shownValue) : shownValue(options.message),
    annotations: HashMap.map(options.annotations, shownValue)
  }))

/** Replaces whichever console logger is installed (the runtime's pretty one included) by the chosen format. */
export const loggerLayer = (format: LogFormat): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.remove(Logger.defaultLogger),
    Logger.remove(Logger.prettyLoggerDefault),
    Logger.add(Logger.withConsoleLog(showing(Logger.mapInput(format === "json" ? flatJsonLogger : Logger.logfmtLogger, masked))))
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

/** A Console that writes what it is given shown (see `shown`). */
export const showingConsole: Effect.Effect<Console.Console> = Effect.map(Effect.console, (base) => {
  const each = (args: ReadonlyArray<unknown>) => args.map(shownValue)
  return {
    ...base,
    log: (...args: ReadonlyArray<unknown>) => base.log(...each(args)),
    info: (...args: ReadonlyArray<unknown>) => base.info(...each(args)),
    error: (...args: ReadonlyArray<unknown>) => base.error(...each(args)),
    warn: (...args: ReadonlyArray<unknown>) => base.warn(...each(args))
  }
})

/** Runs `effect` with logs in `format`; in JSON mode Console output is routed to the logger, in text it is shown. */
export const withLogFormat =
  (format: LogFormat) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(format === "json" ? consoleToLogs : showingConsole, (console) => Effect.withConsole(effect, console)).pipe(Effect.provide(loggerLayer(format)))
