/**
 * A file's bytes, `chunkSize` at a time, by a loop of reads (no read-ahead fiber: the parse is the
 * slower side). Read by the CSV parse and by the batch id's hash.
 */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Data, Effect, Option, Stream } from "effect"
import { createHash, type Hash } from "node:crypto"
import { visible } from "../domain/Text.ts"
import { BatchId } from "../domain/Ids.ts"

/**
 * Every chunk is a view of one buffer, read into again for the next: its consumer decodes or hashes
 * it before pulling the next. A buffer per read left freed memory the allocator did not give back.
 */
export const fileBytes = (path: string, chunkSize: number): Stream.Stream<Uint8Array, PlatformError, FileSystem.FileSystem> =>
  Stream.unwrapScoped(
    Effect.map(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.open(path, { flag: "r" })), (file) => {
      const buffer = new Uint8Array(chunkSize)
      return Stream.repeatEffectOption(
        file.read(buffer).pipe(
          Effect.mapError(Option.some),
          Effect.flatMap((size) => (size === FileSystem.Size(0) ? Effect.fail(Option.none()) : Effect.succeed(buffer.subarray(0, Number(size)))))
        )
      )
    })
  )

/** The batch id of bytes hashed so far (the account scopes it in the store). */
export const batchIdOf = (hash: Hash): BatchId => BatchId.make(hash.digest("hex").slice(0, 16))

export const newFileHash = (): Hash => createHash("sha256")

/**
 * The bytes the parse read are not those the batch id was computed from: the file was replaced or
 * written to between (or during) the two reads. Nothing of it may be kept or paid.
 */
export class FileChanged extends Data.TaggedError("FileChanged")<{
  readonly file: string
  readonly expected: BatchId
  readonly read: BatchId
}> {
  override get message() {
    return `${visible(this.file)} changed while it was read (its content hash differs between two reads): nothing was paid; run it again once the file is complete`
  }
}

/**
 * `bytes` hashed as they pass; after the last one, a failure (FileChanged) unless they hash to
 * `expected`. The stream's consumer sees the failure before it sees the end of the file.
 */
export const hashChecked = <E, R>(file: string, expected: BatchId, bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | FileChanged, R> =>
  Stream.suspend(() => {
    const hash = newFileHash()
    return Stream.concat(
      Stream.tap(bytes, (chunk) => Effect.sync(() => hash.update(chunk))),
      Stream.drain(Stream.fromEffect(Effect.suspend(() => checkHash(file, expected, hash))))
    )
  })

/** Fails with FileChanged unless the bytes hashed so far are the batch `expected`. */
export const checkHash = (file: string, expected: BatchId, hash: Hash): Effect.Effect<void, FileChanged> => {
  const read = batchIdOf(hash)
  return read === expected ? Effect.void : Effect.fail(new FileChanged({ file, expected, read }))
}
