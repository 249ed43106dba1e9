/**
 * Row validation (DESIGN.md section 5): each CSV record becomes a `ValidRow`, ready to be paid, or a
 * `RejectedRow` naming every problem by line, column and reason. Duplicate ids and repeats of
 * (phone, amount, operator) are found within the file here, after each record is checked alone
 * (CheckRecord.ts); the keys to compare with other batches are on each row for the state store.
 */
import type { FileSystem } from "@effect/platform"
import { Chunk, Stream } from "effect"
import { canonicalId } from "../domain/Text.ts"
import { parseCsvFile, type ParseCsvOptions } from "./Csv.ts"
import type { CsvFileError } from "./CsvErrors.ts"
import type { CsvRecord } from "./CsvReader.ts"
import type { FileChanged } from "./FileBytes.ts"
import type { RowError } from "./RowError.ts"
import { DuplicateFinder } from "./Duplicates.ts"
import type { SharedPhones } from "./SharedPhones.ts"
import { fastHash64, repeatMaterial } from "./ValidateKeys.ts"
import { type CheckedRow, cellsOf, checkRecord, rejectedDetails } from "./CheckRecord.ts"

export interface ValidateOptions {
  /** The input's file name, for the default description `Payout <file name> line <n>`. */
  readonly fileName: string
  /** Accept exact repeats of (phone, amount, operator) without distinct ids. */
  readonly allowRepeats?: boolean
  /** One phone, one recipient (SharedPhones.ts): the caller's, to read what it accepted; default: refuse shared phones. */
  readonly sharedPhones?: SharedPhones
}

/**
 * A checker that remembers the ids and repeat keys it has seen: one per file. A later row that
 * repeats an id, or repeats (phone, amount, operator) where either row has no id, is rejected.
 */
export const makeRowChecker = (options: ValidateOptions): ((record: CsvRecord) => CheckedRow) => {
  let finder: DuplicateFinder | undefined
  return (record) => {
    const row = checkRecord(record, options.fileName)
    finder ??= new DuplicateFinder(options.allowRepeats === true, record.headers, options.sharedPhones)
    // Made only for a row with a duplicate: nearly every row has none.
    let errors: Array<RowError> | undefined
    if (row.id !== undefined) {
      const hash = fastHash64(canonicalId(row.id))
      const first = finder.idSeen(hash.hi, hash.lo, row.line)
      if (first !== undefined) (errors ??= []).push(finder.duplicateId(row.line, row.id, first))
    }
    if (row._tag === "ValidRow") {
      // Within the file a 64-bit hash of the material: the stored key (`repeatKeyOf`, a sha256) only where it is kept.
      const hash = fastHash64(repeatMaterial(row.phone, row.amountMinor, row.operator))
      const first = finder.repeatSeen(row.id !== undefined, hash.hi, hash.lo, row.line)
      if (first !== undefined) (errors ??= []).push(finder.repeat(row.line, [row.phone, record.fields.amount?.trim(), row.operator], first))
      const shared = finder.sharedPhone(row.phone, row.name, row.line)
      if (shared !== undefined) (errors ??= []).push(shared)
    }
    if (errors === undefined) return row
    if (row._tag === "RejectedRow") return { ...row, errors: [...row.errors, ...errors] }
    const [first, ...rest] = errors
    return {
      _tag: "RejectedRow",
      line: row.line,
      index: row.index,
      id: row.id,
      errors: [first, ...rest],
      cells: cellsOf(record),
      amountMinor: row.amountMinor,
      details: rejectedDetails(record, row.details)
    }
  }
}

/**
 * Checks a stream of records in groups of `size` rows (the last one shorter); the duplicate tables
 * live in one run of the stream. The arrays rows pass through are emptied once read: each chunk of
 * records here once checked, each group by its consumer (IntakeRows.ts `releaseRows`). A chunk that
 * has passed stays pointed at from V8's old generation until its next full collection, and a
 * scavenge keeps alive what the old generation points to: without it every row of a big file was
 * promoted there (docs/PERFORMANCE.md).
 */
export const checkedGroups =
  (options: ValidateOptions, size: number) =>
  <E, R>(records: Stream.Stream<CsvRecord, E, R>): Stream.Stream<ReadonlyArray<CheckedRow>, E, R> =>
    Stream.suspend(() => {
      const check = makeRowChecker(options)
      let group: Array<CheckedRow> = []
      const groups = Stream.mapChunks(records, (chunk) => {
        // The chunk's own array (Csv.ts emits the reader's array as it is); nothing reads it after this.
        const read = Chunk.toReadonlyArray(chunk) as Array<CsvRecord>
        const full: Array<ReadonlyArray<CheckedRow>> = []
        for (const record of read) {
          group.push(check(record))
          if (group.length === size) {
            full.push(group)
            group = []
          }
        }
        read.length = 0
        return Chunk.unsafeFromArray(full)
      })
      return Stream.concat(groups, Stream.suspend(() => (group.length === 0 ? Stream.empty : Stream.make(group))))
    })

/** Rows a group of `validateRows` holds before it is flattened: any size would do, a small one keeps few rows in flight. */
const FLATTENED_GROUP = 500

/** Checks a stream of records, row by row (`checkedGroups`, flattened). */
export const validateRows =
  (options: ValidateOptions) =>
  <E, R>(records: Stream.Stream<CsvRecord, E, R>): Stream.Stream<CheckedRow, E, R> =>
    records.pipe(checkedGroups(options, FLATTENED_GROUP), Stream.flattenIterables)

export const validateCsvFile = (
  path: string,
  options: ValidateOptions & ParseCsvOptions
): Stream.Stream<CheckedRow, CsvFileError | FileChanged, FileSystem.FileSystem> => parseCsvFile(path, options).pipe(validateRows(options))
