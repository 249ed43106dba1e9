/**
 * Worker threads that validate chunks of a file (ValidateWorker.ts), one per core beyond this one: the
 * phone check alone costs about 10 us a row on one thread. A job goes to the worker with the fewest
 * waiting, and each answers its jobs in the order sent, so the answers can be awaited in file order.
 * When every worker already has its next job waiting, this thread checks the chunk itself: its own
 * work (reading, merging, the store) takes a fraction of a core, and the rest of that core did the work
 * of a second worker, whose isolate cost about 35 MiB of RSS (its heap, code and phone metadata).
 * The threads end with the scope.
 */
import { Data, Effect } from "effect"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { type ChunkJob, type ChunkResult, validateChunk } from "./ValidateChunk.ts"

/** A worker that could not start or died: the caller validates on its own thread instead. */
export class WorkerFailed extends Data.TaggedError("WorkerFailed")<{ readonly cause: unknown }> {}

export interface ValidatePool {
  readonly size: number
  readonly run: (job: ChunkJob) => Effect.Effect<ChunkResult, WorkerFailed>
}

/**
 * The bundled build (dist/*.js) has the worker beside it as ValidateWorker.js. From the TypeScript
 * sources (tsx, vitest) the worker registers tsx before importing ValidateWorker.ts: `--import tsx`
 * in a worker's execArgv is not applied by Node 20, so a two-line bootstrap does it.
 */
const spawn = (): Worker => {
  if (import.meta.url.endsWith(".js")) return new Worker(new URL("./ValidateWorker.js", import.meta.url), { resourceLimits: LIMITS })
  const tsx = createRequire(import.meta.url).resolve("tsx/esm/api")
  const entry = new URL("./ValidateWorker.ts", import.meta.url).href
  return new Worker(`require(${JSON.stringify(tsx)}).register(); import(${JSON.stringify(entry)})`, { eval: true, resourceLimits: LIMITS })
}

/**
 * A worker's heap: a young generation of 8 MiB (V8's default lets each thread's garbage reach about
 * 100 MiB before it is collected: the RSS of three threads, not their data). At 8 MiB the collector
 * once took a quarter of a worker's time; with the checks making less garbage (no details nor default
 * description for a worker, amounts without BigInt) 8 and 16 MiB cost the same CPU (13.1-13.2 s per
 * million rows, alternated) and 8 saves about 25 MiB of RSS. The old one has room for the phone
 * metadata and the code (about 40 MiB live) with a wide margin; a worker that still runs out ends,
 * and the file is checked on the main thread instead.
 */
const LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 }

const isChunkResult = (u: unknown): u is ChunkResult =>
  typeof u === "object" && u !== null && "_tag" in u && (u._tag === "Rows" || u._tag === "Misaligned")

type Resume = (effect: Effect.Effect<ChunkResult, WorkerFailed>) => void

interface Slot {
  readonly worker: Worker
  /** Callers waiting for this worker's answers, oldest first. */
  readonly waiting: Array<Resume>
  failed: WorkerFailed | undefined
}

const open = (size: number): Array<Slot> =>
  Array.from({ length: size }, () => {
    const slot: Slot = { worker: spawn(), waiting: [], failed: undefined }
    const fail = (cause: unknown) => {
      slot.failed ??= new WorkerFailed({ cause })
      for (const resume of slot.waiting.splice(0)) resume(Effect.fail(slot.failed))
    }
    slot.worker.on("message", (message: unknown) => {
      const resume = slot.waiting.shift()
      if (resume === undefined) return
      resume(isChunkResult(message) ? Effect.succeed(message) : Effect.fail(new WorkerFailed({ cause: "an answer of an unknown shape" })))
    })
    slot.worker.on("error", fail)
    slot.worker.on("exit", (code) => fail(`the worker exited (${code})`))
    return slot
  })

/**
 * A chunk checked on this thread. Its bytes are then let go at once (moved into a clone that dies
 * young): checking 4,000 rows here outlasts a collection of the young generation, so the piece's
 * buffer object was often promoted, and its 512 KiB held until the next full collection.
 */
const checkHere = (job: ChunkJob): ChunkResult => {
  const result = validateChunk(job)
  if (job.bytes !== undefined) structuredClone(job.bytes.buffer, { transfer: [job.bytes.buffer as ArrayBuffer] })
  return result
}

/** Jobs a worker holds before this thread checks the next chunk itself: the one it checks and the next. */
const AHEAD = 2

/** Workers: one per core beyond the one reading the file, at least 1, at most `max`. */
export const makeValidatePool = (max = 4) =>
  Effect.acquireRelease(
    Effect.try({ try: () => open(Math.max(1, Math.min(max, availableParallelism() - 1))), catch: (cause) => new WorkerFailed({ cause }) }),
    (slots) => Effect.promise(() => Promise.all(slots.map((s) => s.worker.terminate()))).pipe(Effect.ignore)
  ).pipe(
    Effect.map((slots): ValidatePool => ({
      size: slots.length,
      run: (job) =>
        Effect.suspend(() => {
          const slot = slots.reduce((a, b) => (b.waiting.length < a.waiting.length ? b : a))
          if (slot.failed !== undefined) return Effect.fail(slot.failed)
          if (slot.waiting.length >= AHEAD) return Effect.try({ try: () => checkHere(job), catch: (cause) => new WorkerFailed({ cause }) })
          return Effect.async<ChunkResult, WorkerFailed>((resume) => {
            slot.waiting.push(resume)
            // A piece sent as bytes is moved to the worker, not copied.
            slot.worker.postMessage(job, job.bytes === undefined ? [] : [job.bytes.buffer as ArrayBuffer])
          })
        })
    }))
  )
