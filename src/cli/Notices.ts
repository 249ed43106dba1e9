/**
 * The run's notices on stderr (stdout stays for `--json`). Messages go through `Console`, so
 * `watch --log-format json` turns them into log records like everything else (src/cli/Logging.ts).
 * Progress on a terminal is one live line, cleared before any message so the two never share a line;
 * off a terminal it is a plain `progress:` line each time.
 */
import { Console, Effect, Layer } from "effect"
import { type Notice, Notices, type NoticeSink } from "../run/Notices.ts"

export const stderrNotices = (tty: boolean = process.stderr.isTTY === true): NoticeSink => {
  let live = false
  const clear = Effect.sync(() => {
    if (live) process.stderr.write("\r\x1b[K")
    live = false
  })
  const emit = (notice: Notice): Effect.Effect<void> => {
    switch (notice._tag) {
      case "Message":
        return Effect.zipRight(clear, Console.error(notice.text))
      case "Progress":
        if (!tty) return notice.final === true ? Effect.void : Console.error(`progress: ${notice.text}`)
        if (notice.final === true) {
          return Effect.sync(() => {
            if (live) process.stderr.write("\n")
            live = false
          })
        }
        return Effect.sync(() => {
          process.stderr.write(`\r${notice.text}\x1b[K`)
          live = true
        })
    }
  }
  return { emit }
}

/** Every command renders the run's notices on stderr. */
export const NoticesLive = Layer.succeed(Notices, stderrNotices())
