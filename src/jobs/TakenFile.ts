/**
 * A batch file as the watcher took it (size, mtime, content hash), kept beside it in `processing/`
 * as a hidden `.NAME.taken`, and what differs since: a copy that stalled past the settle time and went
 * on, a file saved over or cut short after it was claimed. Such a file is not paid further.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { basename, dirname, join } from "node:path"
import { BatchId } from "../domain/Ids.ts"
import { fileBatchId } from "../intake/FileBatchId.ts"

export const Fingerprint = Schema.Struct({ size: Schema.Number, mtimeMs: Schema.Number, batchId: BatchId })
export type Fingerprint = typeof Fingerprint.Type

/**
 * The hash, then size and mtime: a write that lands while the file is hashed shows in the size read
 * after it (a copy that goes on reads as grown, not as "replaced at the same size" with the old size).
 */
export const fingerprintOf = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const batchId = yield* fileBatchId(path)
    const info = yield* fs.stat(path)
    return { size: Number(info.size), mtimeMs: Option.match(info.mtime, { onNone: () => 0, onSome: (d) => d.getTime() }), batchId } satisfies Fingerprint
  })

/** A file that grew or shrank since it was taken, in words; undefined at the same size. */
export const sizeChangeOf = (takenSize: number, size: number): string | undefined =>
  size > takenSize
    ? `it grew from ${takenSize} to ${size} bytes after it was taken`
    : size < takenSize
    ? `it shrank from ${takenSize} to ${size} bytes after it was taken`
    : undefined

/** The reason a job gives for a file that changed after it was taken (the run's, the job's and attention's). */
export const changedWhileRead = (change: string) => `the file changed while it was read: ${change}`

/** What changed from `taken` to `now`, in words; undefined when the content is the same. */
export const changeOf = (taken: Fingerprint, now: Fingerprint): string | undefined => {
  if (now.batchId === taken.batchId && now.size === taken.size) return undefined
  return sizeChangeOf(taken.size, now.size) ??
    `its content was replaced after it was taken (same size, content hash ${now.batchId} instead of ${taken.batchId})`
}

const takenPath = (csv: string) => join(dirname(csv), `.${basename(csv)}.taken`)

const encode = Schema.encodeSync(Schema.parseJson(Fingerprint))
const decode = Schema.decodeUnknownOption(Schema.parseJson(Fingerprint))

export const recordTaken = (csv: string, print: Fingerprint) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.writeFileString(takenPath(csv), encode(print), { mode: 0o600 }))

/** The file as it was taken, if it was (a file put in `processing/` by hand was not). */
export const takenOf = (csv: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(takenPath(csv))).pipe(
    Effect.map(decode),
    Effect.orElseSucceed(() => Option.none<Fingerprint>())
  )

/** Once the file leaves `processing/`. */
export const forgetTaken = (csv: string) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(takenPath(csv))).pipe(Effect.ignore)

/** What changed since `taken` in the file at `csv` now (a file gone counts as changed). */
export const changedSince = (csv: string, taken: Fingerprint) =>
  fingerprintOf(csv).pipe(
    Effect.map((now) => Option.fromNullable(changeOf(taken, now))),
    Effect.orElseSucceed(() => Option.some("it can no longer be read"))
  )
