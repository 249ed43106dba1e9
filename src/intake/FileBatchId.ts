/** A batch's id: a hash of the file's bytes (the account scopes it in the store). */
import { Effect, Stream } from "effect"
import { batchIdOf, fileBytes, newFileHash } from "./FileBytes.ts"

/**
 * `payouts validate` reads it before it knows the account. The parse that
 * follows hashes what it reads again and refuses the file if it differs (FileBytes.ts `hashChecked`).
 */
export const fileBatchId = (file: string) =>
  Effect.suspend(() => {
    const hash = newFileHash()
    return Stream.runForEach(fileBytes(file, 64 * 1024), (bytes) => Effect.sync(() => hash.update(bytes))).pipe(
      Effect.map(() => batchIdOf(hash))
    )
  })
