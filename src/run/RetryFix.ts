/**
 * `payouts retry BATCH --fix FILE` (issue 31, correct and re-pay): FILE holds corrected rows in the
 * batch's columns (the `<stem>.unpaid.csv` beside a report is one). It is read by the intake's own
 * validator (phones, operators, invisible characters...), each row is matched by its id (canonical
 * form) to a row of BATCH that ended failed, cancelled or expired, may change phone, operator and
 * name only, and becomes a row of a child batch linked to that row (RetryBatch.ts `placeChild`): paid
 * like any batch, with the next retry generation's tokens, once. Any refused line refuses the file.
 */
import { Chunk, Effect, Either, Stream } from "effect"
import { basename } from "node:path"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { formatAmount } from "../domain/Money.ts"
import { canonicalId, visible } from "../domain/Text.ts"
import { csvFileErrorRows } from "../intake/Csv.ts"
import { retryLineage } from "../intake/RetryLineage.ts"
import type { RowError } from "../intake/RowError.ts"
import { type CheckedRow, validateCsvFile, type ValidRow } from "../intake/Validate.ts"
import type { Batch, Row, RowRetry } from "../store/Model.ts"
import { StateStore } from "../store/StateStore.ts"
import { isRetryable, placeChild, type RetryPlacement, RetryRefused } from "./RetryBatch.ts"

/** One corrected row: the parent row it pays again, and what changes. */
export interface Fix {
  readonly line: number
  readonly original: Row
  readonly corrected: Row
}

/** Why a parent row cannot be paid again by a fix (undefined: it can). */
export const whyNotFixable = (row: Row): string | undefined => {
  if (isRetryable(row)) return undefined
  if (row.alarm !== null) return `under alarm (${row.alarm}): a person decides first (payouts resolve ${row.batchId})`
  switch (row.state) {
    case "completed":
      return `already paid (completed${row.reference === null ? "" : `, ${row.reference}`}): it is never paid twice`
    case "refunded":
      return `paid, then refunded${row.reference === null ? "" : ` (${row.reference})`}: a person decides, not a retry`
    case "unknown":
    case "submitting":
      return `its outcome is unknown (${row.state}): it may have been paid; payouts resolve ${row.batchId} decides first`
    case "abandoned":
      return "abandoned by a person: it may have been paid; pay it in a new file once you know it was not"
    case "rejected":
    case "skipped":
    case "validated":
      return `never sent (${row.state}): it is paid by running its batch's file, or in a new file`
    case "failed":
    case "cancelled":
    case "expired":
      return `${row.state} after an automatic resend: a person decides (payouts resolve ${row.batchId})`
    default:
      return `not final yet (${row.state}): wait for its end`
  }
}

/** The errors of one fix row against its parent row (amount and currency may not change). */
const compare = (fix: ValidRow, original: Row, batch: Batch): ReadonlyArray<RowError> => {
  const at = `row ${original.line} of batch ${batch.batchId}`
  const only = "a fix may change phone, operator and name only; pay a different amount in a new file"
  const errors: Array<RowError> = []
  if (fix.currency !== original.currency) {
    errors.push({ line: fix.line, column: "currency", value: fix.currency, reason: `currency ${fix.currency} differs from ${at} (${original.currency}): ${only}` })
  } else if (fix.amountMinor !== original.amountMinor) {
    const was = formatAmount(original.amountMinor ?? 0, original.currency)
    errors.push({ line: fix.line, column: "amount", value: formatAmount(fix.amountMinor, fix.currency), reason: `amount differs from ${at} (${was} ${original.currency}): ${only}` })
  }
  return errors
}

/** A `already paid again` refusal of a fix line, naming the child that pays it again. */
const takenError = (fix: Fix, link: RowRetry): RowError => ({
  line: fix.line,
  column: "id",
  value: fix.original.rowId ?? "",
  reason: `row ${fix.original.line} of batch ${link.parentBatchId} is already paid again as batch ${link.childBatchId} line ${link.childLine}: a row is paid again once; if that failed too: payouts retry ${link.childBatchId} --fix FILE`
})

/** The fix file's rows, read and checked by the intake, matched to `parent`'s rows; refused whole on any error. */
export const readFixes = Effect.fn("Retry.readFixes")(function* (accountId: AccountId, parent: Batch, fixFile: string) {
  const store = yield* StateStore
  const read = yield* Stream.runCollect(validateCsvFile(fixFile, { fileName: basename(fixFile), allowRepeats: true })).pipe(Effect.either)
  if (Either.isLeft(read)) {
    const error = read.left
    if (error._tag === "FileChanged") return yield* new RetryRefused({ reason: `${fixFile} changed while it was read: run payouts retry again` })
    return yield* new RetryRefused({ reason: `${fixFile} is refused: nothing is paid`, errors: csvFileErrorRows(error) })
  }
  const checked: ReadonlyArray<CheckedRow> = Chunk.toReadonlyArray(read.right)
  const wanted = new Set(checked.flatMap((r) => (r._tag === "ValidRow" && r.id !== undefined ? [canonicalId(r.id)] : [])))
  const originals = new Map<string, Row>()
  if (wanted.size > 0) {
    yield* Stream.runForEach(store.batch(accountId, parent.batchId).streamRows(), (row) =>
      Effect.sync(() => {
        const key = row.rowId === null ? undefined : canonicalId(row.rowId)
        if (key !== undefined && wanted.has(key)) originals.set(key, row)
      })
    )
  }
  const errors: Array<RowError> = []
  const fixes: Array<Fix> = []
  for (const row of checked) {
    if (row._tag === "RejectedRow") {
      errors.push(...row.errors)
      continue
    }
    if (row.id === undefined) {
      errors.push({ line: row.line, column: "id", value: "", reason: `a fix row is matched to its row of batch ${parent.batchId} by its id: this row has none` })
      continue
    }
    const original = originals.get(canonicalId(row.id))
    if (original === undefined) {
      errors.push({ line: row.line, column: "id", value: row.id, reason: `id "${visible(row.id)}" is not in batch ${parent.batchId} (${visible(parent.fileName)})` })
      continue
    }
    const why = whyNotFixable(original)
    if (why !== undefined) {
      errors.push({ line: row.line, column: "id", value: row.id, reason: `row ${original.line} of batch ${parent.batchId} (id "${visible(row.id)}") is ${why}` })
      continue
    }
    const different = compare(row, original, parent)
    if (different.length > 0) {
      errors.push(...different)
      continue
    }
    fixes.push({ line: row.line, original, corrected: { ...original, phone: row.phone, operator: row.operator, name: row.name } })
  }
  if (errors.length > 0) {
    return yield* new RetryRefused({ reason: `${fixFile}: ${new Set(errors.map((e) => e.line)).size} line(s) refused: nothing is paid`, errors })
  }
  return fixes
})

/** Builds (or finds again) the child paying `fixFile`'s corrected rows of `parent`, in `dir`. */
export const makeFixBatch = Effect.fn("Retry.makeFix")(function* (accountId: AccountId, parent: Batch, fixFile: string, dir: string, place: RetryPlacement) {
  const fixes = yield* readFixes(accountId, parent, fixFile)
  const generation = (yield* retryLineage(accountId, parent.batchId)).generation + 1
  const stem = parent.fileName.replace(/\.csv$/i, "")
  const byParentRow = new Map(fixes.map((f) => [f.original.idx, f]))
  // A row another child pays again already (an earlier fix file, the whole retry) refuses the file;
  // the store decides it when it links the rows, atomically (two fix files at the same moment).
  const refuse = (taken: ReadonlyArray<RowRetry>) =>
    new RetryRefused({
      reason: `${fixFile}: ${taken.length} line(s) refused: nothing is paid`,
      errors: taken.flatMap((link) => {
        const fix = byParentRow.get(link.parentIdx)
        return fix === undefined ? [] : [takenError(fix, link)]
      })
    })
  const made = yield* placeChild(
    accountId,
    {
      parent,
      generation,
      rows: fixes.map((f) => f.corrected),
      fixes: true,
      leftOut: { inDoubt: 0, alarmed: 0, resent: 0 },
      name: (child: BatchId) => `${stem}.retry${generation}-${child.slice(0, 8)}.csv`,
      taken: refuse
    },
    dir,
    place
  )
  return { ...made, corrections: fixes }
})
