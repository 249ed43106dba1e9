/**
 * The worker thread of a parallel validation (see ValidatePool.ts): checks the chunks it is sent, in
 * the order sent, and answers each with its rows as columns. The jobs come from our own main thread,
 * so they are trusted as typed rather than decoded again: decoding would cost as much as the check.
 */
import { parentPort } from "node:worker_threads"
import { type ChunkJob, transferables, validateChunk } from "./ValidateChunk.ts"

const port = parentPort
if (port !== null) {
  port.on("message", (job: ChunkJob) => {
    const result = validateChunk(job)
    port.postMessage(result, transferables(result))
  })
}
