/** A batch's id: a hash of the file's bytes (the account scopes it in the store). */
import { FileSystem } from "@effect/platform"
import { Effect, Stream } from "effect"
import { createHash } from "node:crypto"
import { BatchId } from "../domain/Ids.ts"

/** `payouts validate` reads it before it knows the account (Intake.ts re-exports it). */
export const fileBatchId = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const hash = createHash("sha256")
    yield* fs.stream(file, { chunkSize: 256 * 1024 }).pipe(Stream.runForEach((chunk) => Effect.sync(() => hash.update(chunk))))
    return BatchId.make(hash.digest("hex").slice(0, 16))
  })
