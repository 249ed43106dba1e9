/**
 * When a dropped file is complete: `*.part` files are never candidates (rename when done), and a
 * `*.csv` is ready once its mtime is older than the settle time and its size, mtime and content hash
 * have not changed since the previous look (a copy stalled with the file still open keeps its size
 * and mtime: the watcher looks again at what it took, TakenFile.ts).
 */
import { FileSystem } from "@effect/platform"
import { Clock, Effect, Option, Ref } from "effect"
import { lstatSync } from "node:fs"
import { join } from "node:path"
import { batchFilesIn } from "./JobFolder.ts"
import { fingerprintOf, type Fingerprint } from "./TakenFile.ts"

interface Seen {
  readonly size: bigint
  readonly mtime: number
  /** Once the file looks quiet: its size, mtime and hash then. */
  readonly print?: Fingerprint
  /** The same print at two looks: not hashed again while its size and mtime hold (it is at its claim). */
  readonly settled?: boolean
}

export const makeArrivals = (settleMs: number) =>
  Effect.gen(function* () {
    // What the previous look saw of each file still in the folder: each look replaces it whole.
    const seen = yield* Ref.make<ReadonlyMap<string, Seen>>(new Map())

    /** Batch files directly in `dir` that look complete now, in name order, and each one's fingerprint. */
    const ready = (dir: string) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const now = yield* Clock.currentTimeMillis
        const names = yield* batchFilesIn(dir)
        const before = yield* Ref.get(seen)
        const after = new Map<string, Seen>()
        const out: Array<string> = []
        const prints = new Map<string, Fingerprint>()
        for (const name of names) {
          const previous = before.get(name)
          if (previous !== undefined) after.set(name, previous)
          // Regular files only: a symlink (to a secrets file, say), a FIFO or a device is never taken.
          const regular = yield* Effect.try(() => lstatSync(join(dir, name)).isFile()).pipe(Effect.orElseSucceed(() => false))
          if (!regular) continue
          const info = yield* fs.stat(join(dir, name)).pipe(Effect.option)
          if (Option.isNone(info) || info.value.type !== "File") continue
          const size = BigInt(info.value.size)
          const mtime = Option.match(info.value.mtime, { onNone: () => 0, onSome: (d) => d.getTime() })
          const quiet = settleMs <= 0 || now - mtime >= settleMs
          // Hashed only once it looks quiet: a file still being written is not read whole at every look;
          // nor is one found unchanged twice (a file waiting for its schedule) while its size and mtime hold.
          const known = previous?.settled === true && previous.size === size && previous.mtime === mtime ? previous.print : undefined
          const print = known !== undefined
            ? Option.some(known)
            : quiet
            ? yield* fingerprintOf(join(dir, name)).pipe(Effect.option)
            : Option.none()
          if (Option.isNone(print)) {
            after.set(name, { size, mtime })
            continue
          }
          const unchanged =
            settleMs <= 0 ||
            previous === undefined ||
            (previous.print !== undefined && previous.print.batchId === print.value.batchId && previous.print.size === print.value.size && previous.print.mtimeMs === print.value.mtimeMs)
          after.set(name, { size, mtime, print: print.value, settled: unchanged })
          if (unchanged) {
            out.push(name)
            prints.set(name, print.value)
          }
        }
        yield* Ref.set(seen, after)
        return { ready: out, waiting: names.length - out.length, prints }
      })

    return { ready } as const
  })
