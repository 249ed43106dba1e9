/**
 * While a big file is checked on threads, V8 grows the old generation by a fifth of what a full
 * collection leaves (`--heap-growing-percent=20`) instead of its own factor (up to about 2x here): the
 * main thread's old generation held 50-57 MiB at the peak, of which about 23 live, and was the part of
 * the peak RSS over its bound. The flag is read at each full collection, so setting it at run time
 * works; it is process-wide (the worker threads too), set while at least one such check runs and
 * cleared (0: V8's own factor) after the last. The cost is more full collections: about 0.5-1 s of
 * CPU per million rows.
 */
import { Effect } from "effect"
import { setFlagsFromString } from "node:v8"

const GROWING_PERCENT = 20

let holders = 0

export const tightOldGeneration = Effect.acquireRelease(
  Effect.sync(() => {
    if (holders++ === 0) setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`)
  }),
  () =>
    Effect.sync(() => {
      if (--holders === 0) setFlagsFromString("--heap-growing-percent=0")
    })
)
