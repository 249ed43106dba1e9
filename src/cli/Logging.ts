/**
 * `--log-format text|json` for the daemon. In either format the runner's own messages (written with
 * Console) become log records too, so every line on the output has one shape: in JSON one object per
 * line, a record's facts (its annotations: `batch_id`, `file`, `exit_code`, `counts`, ...) fields of
 * that object, for a log pipeline to filter on without parsing the message; in text one line
 * `TIME LEVEL message key=value ...` a person reads. Neither carries the runtime's fiber ids: they
 * mean nothing to an operator.
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

/** A value of a text line: bare when it is one word, else quoted (JSON for an object). */
const textValue = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value)
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)
}

/**
 * One line per record: time, level, message, then the annotations as `key=value`. A message of several
 * lines (a run's table) is written one line each, every one with the time and level, so no line of the
 * output is without them.
 */
export const textLogger = Logger.make(({ annotations, cause, date, logLevel, message }) => {
  const head = `${date.toISOString()} ${logLevel.label.padEnd(5)}`
  // In name order: the same facts read in the same place on every line.
  const facts = HashMap.toEntries(annotations).sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => ` ${key}=${textValue(value)}`).join("")
  const lines = messageText(message).split("\n")
  if (!Cause.isEmpty(cause)) lines.push(...Cause.pretty(cause).split("\n"))
  return lines.map((line, i) => `${head} ${line}${i === 0 ? facts : ""}`).join("\n")
})

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

/**
 * Replaces whichever console logger is installed (the runtime's pretty one included) by the chosen
 * format. Warnings and errors go to stderr, the rest to stdout (Effect's leveled console): one format
 * on both, so `2>&1` reads as one log.
 */
export const loggerLayer = (format: LogFormat): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.remove(Logger.defaultLogger),
    Logger.remove(Logger.prettyLoggerDefault),
    Logger.add(Logger.withLeveledConsole(showing(Logger.mapInput(format === "json" ? flatJsonLogger : textLogger, masked))))
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

/** A Console whose every message is logged as an error: what ends the command. */
const failuresToLogs: Effect.Effect<Console.Console> = Effect.map(consoleToLogs, (base) => {
  const error = (...args: ReadonlyArray<unknown>) => Effect.logError(text(args))
  return { ...base, log: error, info: error, error, warn: error }
})

/**
 * Runs `effect` with logs in `format`, its Console output routed to the logger: one format for every
 * line. `ending` (the report of what ended the command) wraps it; what it prints is logged as errors.
 */
export const withLogFormat =
  <E2 = never>(format: LogFormat, ending?: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, R>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, R> => {
    const routed = Effect.flatMap(consoleToLogs, (console) => Effect.withConsole(effect, console))
    const ended = ending === undefined ? routed : Effect.flatMap(failuresToLogs, (console) => Effect.withConsole(ending(routed), console))
    return ended.pipe(Effect.provide(loggerLayer(format)))
  }
