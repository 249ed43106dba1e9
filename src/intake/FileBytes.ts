/**
 * A file's bytes, `chunkSize` at a time, by a loop of reads: the opens, reads and errors of
 * `fs.stream`, without its read-ahead (a fiber and a queue), which cost a small file ~8 ms of its
 * check; the parse is the slower side of a big file, so reading ahead of it gained nothing. Read by
 * the CSV parse and by the batch id's hash.
 */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Stream } from "effect"

export const fileBytes = (path: string, chunkSize: number): Stream.Stream<Uint8Array, PlatformError, FileSystem.FileSystem> =>
  Stream.unwrapScoped(
    Effect.map(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.open(path, { flag: "r" })), (file) =>
      Stream.repeatEffectOption(
        file.readAlloc(FileSystem.Size(chunkSize)).pipe(
          Effect.mapError(Option.some),
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(Option.none()), onSome: Effect.succeed }))
        )
      ))
  )
