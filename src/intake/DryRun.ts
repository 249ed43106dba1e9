/**
 * `payouts validate` of a new file: every check of `payouts run`'s intake (the rows alone, duplicates
 * in the file, ids and repeats of other batches, the guards), nothing written to the store. A big file
 * is parsed and checked in chunks on worker threads and merged here in file order (duplicates found
 * here, in order, so every error keeps its line); a small one, or any file the chunked reader leaves
 * alone (see CsvChunks.ts), goes through the streamed reader on this thread. Both give the same result.
 */
import { FileSystem } from "@effect/platform"
import { Chunk, Data, Effect, Either, Option, Predicate, Stream } from "effect"
import type { BatchId } from "../domain/Ids.ts"
import { MergedChunk } from "./ChunkMerge.ts"
import { csvFileErrorRows } from "./Csv.ts"
import { CsvChunkSplitter, type TextChunk } from "./CsvChunks.ts"
import { headerNames } from "./CsvReader.ts"
import { type CrossBatchSettings, makeCrossBatch } from "./CrossBatch.ts"
import { isCsvFileError } from "./CsvErrors.ts"
import { DuplicateFinder } from "./Duplicates.ts"
import { checkHash, type FileChanged, newFileHash } from "./FileBytes.ts"
import { Intake } from "./IntakeResult.ts"
import { SharedPhones } from "./SharedPhones.ts"
import { validateCsvFile } from "./Validate.ts"
import type { WorkerFailed } from "./ValidatePool.ts"
import { type CrossBatchCheck, type CrossBatchError, makeTally, type OtherBatches } from "./DryRunTally.ts"

export type { CrossBatchCheck, OtherBatches }

/** From this size a file is checked on worker threads: below, starting them costs more than it saves. */
export const PARALLEL_MIN_BYTES = 4 * 1024 * 1024

/** Bytes of text per chunk sent to a worker (about 4,000 rows of a typical file). */
const CHUNK_CHARS = 512 * 1024

/** Bytes read at a time on the worker path. */
const READ_BYTES = 64 * 1024

/** Rows per group asked of the store on the streamed path (as `payouts run`'s intake). */
const GROUP = 500

/** The file's own checks: what they need beyond the store. */
export interface FileCheckInput {
  readonly batchId: BatchId
  readonly allowRepeats: boolean
  /** Accept one phone paid under several names (SharedPhones.ts); default: refused. */
  readonly allowSharedPhone?: boolean
  readonly file: string
  readonly fileName: string
  readonly skipInvalid: boolean
  /** Worker threads or not; default: by the file's size. */
  readonly parallel?: boolean
  /** Characters per chunk on the worker threads (tests make it small to cut a small file often). */
  readonly chunkChars?: number
}

export interface DryRunInput extends FileCheckInput, CrossBatchSettings {}

/** The parallel path gives the file to the streamed reader (it alone words file-level problems). */
export class Fallback extends Data.TaggedError("Fallback")<{ readonly why: string }> {}

const streamed = <E, R>(input: FileCheckInput, others: OtherBatches<E, R>) =>
  Effect.gen(function* () {
    const phones = new SharedPhones(input.allowSharedPhone === true)
    const tally = makeTally(input.batchId, input.skipInvalid, others, phones)
    const checked = yield* validateCsvFile(input.file, { fileName: input.fileName, allowRepeats: input.allowRepeats, sharedPhones: phones, expect: input.batchId }).pipe(
      Stream.grouped(GROUP),
      Stream.mapEffect((chunk) => tally.add(Chunk.toReadonlyArray(chunk))),
      Stream.runDrain,
      Effect.either
    )
    if (Either.isLeft(checked)) {
      const error = checked.left
      if (!isCsvFileError(error)) return yield* Effect.fail(error)
      return Intake.Refused({ batchId: input.batchId, errors: csvFileErrorRows(error), rows: tally.rows })
    }
    return tally.result()
  })

/** The check on worker threads alone: fails (Fallback, WorkerFailed) where `checkFile` uses the streamed reader. */
export const checkOnThreadsWith = <E, R>(input: FileCheckInput, others: OtherBatches<E, R>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    // Imported here: only a big file needs the threads (node:worker_threads) and the heap's flag (node:v8).
    const [{ makeValidatePool }, { tightOldGeneration }] = yield* Effect.promise(() => Promise.all([import("./ValidatePool.ts"), import("./HeapGrowth.ts")]))
    yield* tightOldGeneration
    const pool = yield* makeValidatePool()
    const phones = new SharedPhones(input.allowSharedPhone === true)
    const tally = makeTally(input.batchId, input.skipInvalid, others, phones)
    const splitter = new CsvChunkSplitter(input.chunkChars ?? CHUNK_CHARS)
    const ready = (chunks: ReadonlyArray<TextChunk> | undefined) =>
      chunks === undefined ? Effect.fail(new Fallback({ why: "the file needs the streamed reader" })) : Effect.succeed(chunks)
    let finder: DuplicateFinder | undefined
    let index = 0
    let firstChars = 0
    const fileBytes = yield* fs.stat(input.file).pipe(Effect.map((s) => Number(s.size)), Effect.orElseSucceed(() => 0))
    // One buffer read into again and again: the splitter decodes each piece before the next read,
    // so the file's bytes never pile up as garbage (a new buffer per read did, 100 MB per million rows).
    const file = yield* fs.open(input.file).pipe(Effect.mapError((e) => new Fallback({ why: e.message })))
    const buffer = new Uint8Array(READ_BYTES)
    // The bytes checked are the batch's: hashed as they are read, compared with its id at the end.
    const hash = newFileHash()
    const next = file.read(buffer).pipe(
      Effect.mapError((e) => new Fallback({ why: e.message })),
      Effect.tap((size) => hash.update(buffer.subarray(0, Number(size)))),
      Effect.flatMap((size) => (Number(size) === 0 ? Effect.succeed(undefined) : ready(splitter.push(buffer.subarray(0, Number(size)))))),
      Effect.mapError(Option.some),
      Effect.flatMap((chunks) => (chunks === undefined ? Effect.fail(Option.none()) : Effect.succeed(chunks)))
    )
    yield* Stream.repeatEffectOption(next).pipe(
      Stream.flattenIterables,
      Stream.concat(Stream.suspend(() => Stream.fromIterableEffect(Effect.zipRight(checkHash(input.file, input.batchId, hash), ready(splitter.end()))))),
      // Up to two chunks a worker in flight (each has the next while its last answer is merged), and
      // two checked on this thread while the workers are busy (ValidatePool.ts).
      Stream.mapEffect(
        (chunk) => {
          finder ??= new DuplicateFinder(input.allowRepeats, headerNames(chunk.header), phones)
          if (chunk.seq === 0) firstChars = chunk.text?.length ?? 0
          return pool.run({ ...chunk, fileName: input.fileName })
        },
        { concurrency: pool.size * 2 + 2 }
      ),
      Stream.runForEach((result): Effect.Effect<void, Fallback | FileChanged | E | CrossBatchError, R> => {
        if (result._tag === "Misaligned" || finder === undefined) return Effect.fail(new Fallback({ why: "a chunk was not cut between rows" }))
        // The first chunk tells the file's rows ahead: the tables are sized once, never regrown.
        if (result.seq === 0 && firstChars > 0) finder.reserve(Math.ceil((fileBytes / firstChars) * result.count * 1.05))
        const chunk = new MergedChunk(result, finder, index)
        index += result.count
        return tally.addChunk(chunk)
      })
    )
    if (tally.rows === 0) return yield* new Fallback({ why: "no rows" })
    return tally.result()
  }).pipe(Effect.scoped)

/** `checkOnThreadsWith` against the store in context (tests compare it with the streamed reader). */
export const checkOnThreads = (input: DryRunInput) => checkOnThreadsWith(input, { open: makeCrossBatch(input), ownFirst: false })

// By its tag: the class is in ValidatePool.ts, which a small file's check does not load.
const fellBack = (e: unknown): e is Fallback | WorkerFailed => e instanceof Fallback || Predicate.isTagged(e, "WorkerFailed")

/**
 * A file's checks, nothing stored: on worker threads when it is big (and they can read it), else, or
 * when they cannot, on this thread. `others.open` runs at most once whichever path reads the file.
 */
export const checkFile = <E, R>(input: FileCheckInput, others: OtherBatches<E, R>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const once = { ...others, open: yield* Effect.cached(others.open) }
    const big = input.parallel ?? (yield* fs.stat(input.file).pipe(Effect.map((s) => Number(s.size) >= PARALLEL_MIN_BYTES), Effect.orElseSucceed(() => false)))
    if (big) {
      const checked = yield* checkOnThreadsWith(input, once).pipe(
        Effect.map(Either.right),
        Effect.catchIf(fellBack, (e) => Effect.succeed(Either.left(e._tag === "Fallback" ? e.why : String(e.cause))))
      )
      if (Either.isRight(checked)) return checked.right
      yield* Effect.logDebug(`validation on this thread: ${checked.left}`)
    }
    return yield* streamed(input, once)
  }).pipe(Effect.withSpan("Intake.checkFile"))

/** `payouts run`'s dry run (the watcher's): every row asked of the store in context. */
export const dryRun = (input: DryRunInput) => checkFile(input, { open: makeCrossBatch(input), ownFirst: false })
