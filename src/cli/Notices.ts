/**
 * The run's notices on stderr (stdout stays for `--json`). Messages go through `Console`, so
 * `watch --log-format json` turns them into log records like everything else (src/cli/Logging.ts).
 * Progress on a terminal is a live figure (a bar per phase, ProgressView.ts), cleared before any
 * message so the two never share a line; off a terminal it is a plain `progress:` line each time.
 */
import { Console, Effect, Layer } from "effect"
import { DEFAULT_LOCALE, type Format, formatFor, userFormat } from "../output/Format.ts"
import { type Notice, Notices, type NoticeSink } from "../run/Notices.ts"
import { noticeText } from "./NoticeText.ts"
import { liveProgress, plainProgress } from "./ProgressView.ts"

export interface LiveLine {
  readonly sink: NoticeSink
  /** Clears the live line if one is drawn: call it before writing anything else to the terminal. */
  readonly clear: Effect.Effect<void>
}

export const liveNotices = (tty: boolean = process.stderr.isTTY === true, format: Format = formatFor(DEFAULT_LOCALE)): LiveLine => {
  // How many lines the live figures take (0: none drawn); erased from the last one up.
  let live = 0
  const erase = () => `\r\x1b[K${"\x1b[1A\x1b[K".repeat(Math.max(0, live - 1))}`
  const clear = Effect.sync(() => {
    if (live > 0) process.stderr.write(erase())
    live = 0
  })
  const emit = (notice: Notice): Effect.Effect<void> => {
    switch (notice._tag) {
      case "Message":
        return Effect.zipRight(clear, Console.error(notice.text))
      case "Progress":
        if (!tty) return Console.error(`progress: ${plainProgress(notice.figures, format)}`)
        return Effect.sync(() => {
          const lines = liveProgress(notice.figures, format, process.stderr.columns || 80)
          process.stderr.write(`${erase()}${lines.join("\n")}`)
          live = lines.length
        })
      case "Ended":
        // `payouts run` renders the end itself (handlers/Run.ts); elsewhere (watch) the log says it.
        return Effect.void
      case "ProgressEnd":
        // The last figures stay on screen, on their own line.
        return Effect.sync(() => {
          if (live > 0) process.stderr.write("\n")
          live = 0
        })
      default:
        // Worded in the user's locale as it is when the event happens.
        return Effect.zipRight(clear, Effect.flatMap(userFormat, (format) => Console.error(noticeText(notice, format))))
    }
  }
  return { sink: { emit }, clear }
}

export const stderrNotices = (tty: boolean = process.stderr.isTTY === true, format?: Format): NoticeSink => liveNotices(tty, format).sink

/** Every command renders the run's notices on stderr, numbers in the user's locale. */
export const NoticesLive = Layer.effect(
  Notices,
  Effect.map(userFormat, (format) => stderrNotices(process.stderr.isTTY === true, format))
)
