/**
 * `<name>.unpaid.csv`, beside the report that links it: the rows the service settled unpaid (failed,
 * cancelled, expired) that may be paid again, in the input's own columns, so that a person corrects
 * phone, operator or name and feeds it to `payouts retry BATCH --fix FILE` as it is (RetryFix.ts takes
 * exactly these rows: RetryBatch's isRetryable). Rows that may be paid (unknown, in flight, resent),
 * under alarm, or settled by a person are never in it: paying them again could pay twice. Rows never
 * sent (rejected, skipped) are listed by the report; they are paid by a new file.
 * Owner-only, as every output (AtomicFile.ts): it holds names and phone numbers.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Stream } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { formatAmount } from "../domain/Money.ts"
import { CSV_COLUMNS, META_PREFIX } from "../intake/CsvHeader.ts"
import { AMOUNT_AS_WRITTEN } from "../intake/CheckRecord.ts"
import type { Row } from "../store/Model.ts"
import { isRetryable } from "../store/Model.ts"
import { SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { writeFileAtomic } from "./AtomicFile.ts"
import { csvLine } from "./CsvCells.ts"

export const unpaidCsvPath = (reportPath: string): string => reportPath.replace(/\.report\.html$/, "") + ".unpaid.csv"

/** The `meta.*` columns the unpaid rows need, gathered while the report's pass sees them. */
export const makeUnpaidColumns = () => {
  const keys = new Set<string>()
  let rows = 0
  const add = (row: Row): void => {
    if (!isRetryable(row)) return
    rows += 1
    for (const key of Object.keys(row.details)) if (key !== AMOUNT_AS_WRITTEN) keys.add(key)
  }
  return { add, rows: () => rows, keys: () => [...keys].sort() } as const
}

export type UnpaidColumns = ReturnType<typeof makeUnpaidColumns>

/** One row as the input wrote it, its amount in major units without separators (the CSV's own form). */
export const unpaidCells = (row: Row, keys: ReadonlyArray<string>): ReadonlyArray<string> => [
  row.rowId ?? "",
  row.amountMinor === null ? "" : formatAmount(row.amountMinor, row.currency),
  row.currency,
  row.operator,
  row.phone,
  row.name,
  row.email,
  row.description,
  ...keys.map((k) => row.details[k] ?? "")
]

// A person opens this file in a spreadsheet to correct it: a cell that could run as a formula gets
// its leading quote, as in every CSV we write (a spreadsheet keeps the text and drops the quote).
const line = (cells: ReadonlyArray<string>) => csvLine(cells)

/**
 * Writes the file from the store, streamed in file order; removes a stale one when nothing is left
 * unpaid (a resumed batch that paid its last rows). Answers whether a file is there.
 */
export const writeUnpaidCsv = (path: string, accountId: AccountId, batchId: BatchId, columns: UnpaidColumns) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    if (columns.rows() === 0) {
      yield* fs.remove(path).pipe(Effect.ignore)
      return false
    }
    const reads = yield* Rows
    const keys = columns.keys()
    const header = line([...CSV_COLUMNS, ...keys.map((k) => `${META_PREFIX}${k}`)])
    const rows = reads.streamRowsInStates(accountId, batchId, SETTLED_FAILURE_STATES).pipe(
      Stream.filter(isRetryable),
      Stream.map((row) => line(unpaidCells(row, keys)))
    )
    yield* writeFileAtomic(path, Stream.concat(Stream.make(header), rows))
    return true
  }).pipe(Effect.withSpan("Report.unpaidCsv"))
