/**
 * The job folder's layout and its moves. A batch file travels with its outputs (ledger, summary,
 * report, errors, approval) under one stem; every move is a rename, atomic within the folder's disk.
 * A batch keeps the name it was dropped under; only where a folder already holds an earlier batch of
 * that name (a re-drop of `week49.csv`) does it get one with its arrival time, never overwriting.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { basename, join } from "node:path"
import { OUTPUT_SUFFIXES, stemOf } from "../output/AtomicFile.ts"
import { forgetTaken } from "./TakenFile.ts"

/** The job folder every command takes when none is named (`watch`'s DIR, the others' `--jobs`). */
export const DEFAULT_JOBS_DIR = "jobs"

export interface JobFolder {
  readonly root: string
  readonly processing: string
  readonly done: string
  readonly rejected: string
  readonly awaiting: string
  /** Batches that need a person (exit 5): `payouts resolve` says what and why. */
  readonly attention: string
  readonly examples: string
}

export const jobFolder = (root: string): JobFolder => ({
  root,
  processing: join(root, "processing"),
  done: join(root, "done"),
  rejected: join(root, "rejected"),
  awaiting: join(root, "awaiting-approval"),
  attention: join(root, "attention"),
  examples: join(root, "examples")
})

export const ensureFolders = (folder: JobFolder) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    Effect.forEach([folder.processing, folder.done, folder.rejected, folder.awaiting, folder.attention], (dir) => fs.makeDirectory(dir, { recursive: true }), {
      discard: true
    })
  )

/** A batch file: `*.csv`, not hidden. `*.part` (still being written) and anything else never match. */
export const isBatchFile = (name: string) => !name.startsWith(".") && name.toLowerCase().endsWith(".csv")

/** The batch files (not outputs) directly in `dir`, in name order. */
export const batchFilesIn = (dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed((): Array<string> => []))
    return names.filter((n) => isBatchFile(n) && !OUTPUT_SUFFIXES.some((s) => n.endsWith(s))).sort()
  })

const exists = (fs: FileSystem.FileSystem, path: string) => fs.exists(path).pipe(Effect.orElseSucceed(() => false))

/** A moment as a name part: `20261127-204005Z` (UTC, sorts by time, no character a shell or a disk minds). */
export const stampOf = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace("T", "-").replace(/\.\d+Z$/, "Z")

/**
 * The stem a batch keeps in `dir`: its own when no file there has it; else (an earlier batch of the
 * same name is there: never overwritten) the name with when it arrived, `name.20261127-204005Z`,
 * then `-2`, `-3`, ... within the same second.
 */
export const stemIn = (stem: string, dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const taken = (candidate: string) =>
      Effect.map(Effect.all([`.csv`, ...OUTPUT_SUFFIXES].map((s) => exists(fs, join(dir, candidate + s)))), (found) => found.some(Boolean))
    if (!(yield* taken(stem))) return stem
    const stamped = `${stem}.${stampOf(yield* Clock.currentTimeMillis)}`
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? stamped : `${stamped}-${n}`
      if (!(yield* taken(candidate))) return candidate
    }
  })

/**
 * Claims `root/name` by renaming it into `processing/`, under its own name unless a batch of that name
 * is still there (see `stemIn`). None when another process took it first.
 */
export const claim = (folder: JobFolder, name: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const stem = yield* stemIn(stemOf(name), folder.processing)
    const target = join(folder.processing, `${stem}.csv`)
    if (yield* exists(fs, target)) return Option.none<string>()
    return yield* fs.rename(join(folder.root, name), target).pipe(
      Effect.as(Option.some(target)),
      Effect.orElseSucceed(() => Option.none<string>())
    )
  })

/**
 * Moves a batch file and every output beside it to `toDir`; returns the batch file's new path. Under
 * its own name unless `toDir` holds an earlier batch of that name (see `stemIn`; Renames.ts says why).
 */
export const moveBatch = (csvPath: string, fromDir: string, toDir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(toDir, { recursive: true })
    const stem = stemOf(csvPath)
    const target = yield* stemIn(stem, toDir)
    for (const suffix of OUTPUT_SUFFIXES) {
      const from = join(fromDir, stem + suffix)
      if (yield* exists(fs, from)) yield* fs.rename(from, join(toDir, target + suffix))
    }
    // By its own name: one put back by hand may be longer than its stem.
    const csv = join(fromDir, basename(csvPath))
    if (yield* exists(fs, csv)) yield* fs.rename(csv, join(toDir, `${target}.csv`))
    yield* forgetTaken(csv)
    return join(toDir, `${target}.csv`)
  })
