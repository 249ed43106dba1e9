/** A batch's id: a hash of the file's bytes (the account scopes it in the store). */
import { Effect, Stream } from "effect"
import { createHash } from "node:crypto"
import { BatchId } from "../domain/Ids.ts"
import { fileBytes } from "./FileBytes.ts"

/** `payouts validate` reads it before it knows the account (Intake.ts re-exports it). */
export const fileBatchId = (file: string) =>
  Effect.suspend(() => {
    const hash = createHash("sha256")
    return Stream.runForEach(fileBytes(file, 256 * 1024), (bytes) => Effect.sync(() => hash.update(bytes))).pipe(
      Effect.map(() => BatchId.make(hash.digest("hex").slice(0, 16)))
    )
  })
