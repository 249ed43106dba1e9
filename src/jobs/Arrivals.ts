/**
 * When a dropped file is complete: `*.part` files are never candidates (rename when done), and a
 * `*.csv` is ready once its mtime is older than the settle time and its size and mtime have not
 * changed since the previous look.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { lstatSync } from "node:fs"
import { join } from "node:path"
import { batchFilesIn } from "./JobFolder.ts"

interface Seen {
  readonly size: bigint
  readonly mtime: number
}

export const makeArrivals = (settleMs: number) =>
  Effect.sync(() => {
    const seen = new Map<string, Seen>()

    /** Batch files directly in `dir` that look complete now, in name order. */
    const ready = (dir: string) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const now = yield* Clock.currentTimeMillis
        const names = yield* batchFilesIn(dir)
        const out: Array<string> = []
        for (const name of names) {
          // Regular files only: a symlink (to a secrets file, say), a FIFO or a device is never taken.
          const regular = yield* Effect.try(() => lstatSync(join(dir, name)).isFile()).pipe(Effect.orElseSucceed(() => false))
          if (!regular) continue
          const info = yield* fs.stat(join(dir, name)).pipe(Effect.option)
          if (Option.isNone(info) || info.value.type !== "File") continue
          const current: Seen = {
            size: BigInt(info.value.size),
            mtime: Option.match(info.value.mtime, { onNone: () => 0, onSome: (d) => d.getTime() })
          }
          const previous = seen.get(name)
          seen.set(name, current)
          if (settleMs <= 0) {
            out.push(name)
            continue
          }
          const unchanged = previous === undefined || (previous.size === current.size && previous.mtime === current.mtime)
          if (unchanged && now - current.mtime >= settleMs) out.push(name)
        }
        for (const name of [...seen.keys()]) if (!names.includes(name)) seen.delete(name)
        return { ready: out, waiting: names.length - out.length }
      })

    return { ready } as const
  })
