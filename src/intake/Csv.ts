/**
 * Batch input, streamed: `parseCsvFile` reads a payout CSV (DESIGN.md section 5) chunk by chunk and
 * emits one record per data row, with the physical line where it starts. File-level problems end
 * the stream with a `CsvFileError`; row-level problems travel on the record (`errors`).
 */
import type { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Channel, Chunk, Either, Stream } from "effect"
import { CsvReadError, type CsvFileError } from "./CsvErrors.ts"
import type { BatchId } from "../domain/Ids.ts"
import { type FileChanged, fileBytes, hashChecked } from "./FileBytes.ts"
import { type CsvRecord, CsvRecordReader } from "./CsvReader.ts"
import { type CsvRow, CsvRowReader, type RowsOrError } from "./CsvRows.ts"

export interface ParseCsvOptions {
  /** Bytes read at a time; 64 KiB by default. */
  readonly chunkSize?: number
  /**
   * The batch id computed from the file before: the bytes parsed are hashed as they are read and the
   * stream fails with FileChanged, after the last row, if they are not that batch.
   */
  readonly expect?: BatchId
}

/**
 * Each chunk of `bytes` through `step`, then `end`: what they give is written downstream, the first Left
 * fails the stream. A channel, not `mapConcatEffect`: records passed through an Effect per chunk were
 * kept alive by the fiber until they reached V8's old space (about 500 bytes a row of garbage there).
 */
const throughSteps = <A, E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  step: (chunk: Uint8Array) => Either.Either<ReadonlyArray<A>, CsvFileError>,
  end: () => Either.Either<ReadonlyArray<A>, CsvFileError>
): Stream.Stream<A, E | CsvFileError, R> => {
  const emit = (result: Either.Either<ReadonlyArray<A>, CsvFileError>) =>
    Either.isLeft(result) ? Channel.fail(result.left) : Channel.write(Chunk.fromIterable(result.right))
  const loop = (input: Iterator<Uint8Array>): Channel.Channel<Chunk.Chunk<A>, Chunk.Chunk<Uint8Array>, E | CsvFileError, E, unknown, unknown> => {
    const next = input.next()
    if (next.done === true) return read
    return Channel.zipRight(emit(step(next.value)), Channel.suspend(() => loop(input)))
  }
  const read: Channel.Channel<Chunk.Chunk<A>, Chunk.Chunk<Uint8Array>, E | CsvFileError, E, unknown, unknown> = Channel.readWithCause({
    onInput: (chunk: Chunk.Chunk<Uint8Array>) => loop(chunk[Symbol.iterator]()),
    onFailure: Channel.failCause,
    onDone: () => Channel.suspend(() => emit(end()))
  })
  return Stream.pipeThroughChannel(bytes, read)
}

/** Every row of cells, the header included, with its starting line: the generic CSV layer. */
export const csvRows = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<CsvRow, E | CsvFileError, R> =>
  Stream.suspend(() => {
    const reader = new CsvRowReader()
    return throughSteps(bytes, (chunk) => reader.push(chunk), () => reader.end())
  })

/** Payout records from a stream of bytes; a file without data rows fails with `CsvNoRowsError`. */
export const parseCsvBytes = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<CsvRecord, E | CsvFileError, R> =>
  Stream.suspend(() => {
    const rows = new CsvRowReader()
    const records = new CsvRecordReader()
    const toRecords = (result: RowsOrError): Either.Either<ReadonlyArray<CsvRecord>, CsvFileError> =>
      Either.flatMap(result, (batch) => records.rows(batch, rows.delimiter ?? ","))
    return throughSteps(
      bytes,
      (chunk) => toRecords(rows.push(chunk)),
      () => Either.flatMap(toRecords(rows.end()), (last) => Either.map(records.end(), () => last))
    )
  })

const readError = (path: string) => (error: PlatformError): CsvReadError =>
  new CsvReadError({
    path,
    reason: error._tag === "SystemError" && error.reason === "NotFound" ? "no such file" : error.message,
    cause: error
  })

export const parseCsvFile = (
  path: string,
  options?: ParseCsvOptions
): Stream.Stream<CsvRecord, CsvFileError | FileChanged, FileSystem.FileSystem> => {
  const bytes = fileBytes(path, options?.chunkSize ?? 64 * 1024).pipe(Stream.mapError(readError(path)))
  return parseCsvBytes(options?.expect === undefined ? bytes : hashChecked(path, options.expect, bytes))
}

const encoder = new TextEncoder()

/** Records from text or bytes already in memory, in the given chunks (tests, small inputs). */
export const parseCsvChunks = (chunks: Iterable<string | Uint8Array>): Stream.Stream<CsvRecord, CsvFileError> =>
  parseCsvBytes(Stream.fromIterable(chunks).pipe(Stream.map((c) => (typeof c === "string" ? encoder.encode(c) : c))))

export const parseCsvText = (text: string): Stream.Stream<CsvRecord, CsvFileError> => parseCsvChunks([text])
