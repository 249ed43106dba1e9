/**
 * Files written atomically: the content goes to a temporary file in the same directory, is flushed
 * to disk, then renamed over the target. A reader (or a kill mid-write) sees the old file or the
 * complete new one, never half of it.
 */
import { FileSystem } from "@effect/platform"
import { type PlatformError, SystemError } from "@effect/platform/Error"
import { Effect, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { basename, dirname, extname, join } from "node:path"
import { visible } from "../domain/Text.ts"

const encoder = new TextEncoder()

export const tempPathFor = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.tmp`)

/** True for the temporary files `writeFileAtomic` leaves when killed. */
export const isTempFileOf = (path: string, candidate: string): boolean =>
  candidate.startsWith(`.${basename(path)}.`) && candidate.endsWith(".tmp")

const syncDirectory = (fs: FileSystem.FileSystem, dir: string) =>
  Effect.scoped(Effect.flatMap(fs.open(dir, { flag: "r" }), (handle) => handle.sync)).pipe(Effect.ignore)

export const writeFileAtomic = <E, R>(
  path: string,
  content: Stream.Stream<string, E, R>
): Effect.Effect<void, E | PlatformError, FileSystem.FileSystem | R> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const temp = tempPathFor(path)
    const write = Effect.scoped(
      Effect.gen(function* () {
        // Ledgers, summaries, reports and errors hold names and phone numbers: owner-only.
        const file = yield* fs.open(temp, { flag: "wx", mode: 0o600 })
        yield* content.pipe(
          Stream.rechunk(1024),
          Stream.runForEachChunk((chunk) => file.writeAll(encoder.encode(Array.from(chunk).join(""))))
        )
        yield* file.sync
      })
    )
    yield* write.pipe(
      Effect.zipRight(fs.rename(temp, path)),
      Effect.onError(() => fs.remove(temp).pipe(Effect.ignore))
    )
    yield* syncDirectory(fs, dirname(path))
  }).pipe(
    // A failure names the file we were writing, not a descriptor or a temporary name (`disk full
    // writing PATH`, exit 4), whatever step failed.
    Effect.mapError((error) => (isSystemError(error) ? new SystemError({ ...error, pathOrDescriptor: path }) : error)),
    Effect.withSpan("Ledger.writeFileAtomic", { attributes: { path } })
  )

const isSystemError = (error: unknown): error is SystemError => error instanceof SystemError

/** `disk full writing PATH`, `no permission to write PATH`, else the path and what the system said. */
export const describeFileError = (error: SystemError): string => {
  const path = typeof error.pathOrDescriptor === "string" ? visible(error.pathOrDescriptor) : "a file"
  const code = typeof error.cause === "object" && error.cause !== null && "code" in error.cause ? String(error.cause.code) : ""
  const text = `${code} ${error.description ?? ""} ${error.message}`
  if (/ENOSPC|EDQUOT/.test(text)) return `disk full writing ${path}`
  if (/EROFS/.test(text)) return `${path} is on a read-only file system`
  if (/EACCES|EPERM/.test(text) || error.reason === "PermissionDenied") return `no permission to write ${path}`
  if (/ENOTDIR/.test(text)) return `${path}: a part of the path is not a directory`
  return `${path}: ${error.description ?? error.reason}`
}

/** One line for any failure to write an output. */
export const describeWriteError = (error: unknown): string =>
  isSystemError(error) ? describeFileError(error) : error instanceof Error ? error.message : String(error)

export const writeTextAtomic = (path: string, text: string) => writeFileAtomic(path, Stream.make(text))

export interface OutputPaths {
  readonly ledger: string
  readonly errors: string
  readonly summary: string
}

/**
 * The longest name stem an output gets, in UTF-8 bytes: a path component holds 255, and the longest
 * suffix (`.approval.json`), a `-NN` of a free name and an atomic write's `.` + `.<8 hex>.tmp` still fit.
 */
const MAX_STEM_BYTES = 200
const utf8 = (text: string) => Buffer.byteLength(text, "utf8")

/** A stem as an output's name starts: a long one cut to a readable prefix + `-` + a short hash of all of it. */
export const shortStem = (stem: string): string => {
  if (utf8(stem) <= MAX_STEM_BYTES) return stem
  const hash = createHash("sha256").update(stem).digest("hex").slice(0, 10)
  let prefix = ""
  for (const c of stem) {
    if (utf8(prefix) + utf8(c) > MAX_STEM_BYTES - hash.length - 1) break
    prefix += c
  }
  return `${prefix}-${hash}`
}

/** `<name>.ledger.csv`, `<name>.errors.csv`, `<name>.summary.json` beside the input or in `outDir`. */
export const outputPaths = (input: string, outDir?: string): OutputPaths => {
  const file = basename(input)
  const ext = extname(file)
  const name = shortStem(ext.toLowerCase() === ".csv" ? file.slice(0, -ext.length) : file)
  const dir = outDir ?? dirname(input)
  return {
    ledger: join(dir, `${name}.ledger.csv`),
    errors: join(dir, `${name}.errors.csv`),
    summary: join(dir, `${name}.summary.json`)
  }
}

/** The stem a batch file's outputs are named after (a long name shortened: `shortStem`). */
export const stemOf = (name: string) => shortStem(basename(name).replace(/\.csv$/i, ""))

export const OUTPUT_SUFFIXES = [".ledger.csv", ".summary.json", ".report.html", ".errors.csv", ".approval.json", ".attention.txt", ".unpaid.csv"] as const

/** The path of one output of the batch file `csvPath`. */
export const outputOf = (csvPath: string, suffix: (typeof OUTPUT_SUFFIXES)[number], dir?: string) =>
  join(dir ?? join(csvPath, ".."), stemOf(csvPath) + suffix)
