/**
 * `payouts retry BATCH --fix FILE` (issue 31, correct and re-pay): FILE holds corrected rows in the
 * batch's columns (the `<stem>.unpaid.csv` beside a report is one). It is read by the intake's own
 * validator (phones, operators, invisible characters...), each row is matched by its id (canonical
 * form; a row without one by its description, amount, currency and e-mail) to a row of BATCH that
 * ended failed, cancelled or expired, may change phone, operator and name only, and becomes a row of a child batch linked to that row (RetryBatch.ts `placeChild`): paid
 * like any batch, with the next retry generation's tokens, once. Any refused line refuses the file.
 */
import { Chunk, Effect, Either, Stream } from "effect"
import { basename } from "node:path"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { formatAmount } from "../domain/Money.ts"
import { canonicalId, visible } from "../domain/Text.ts"
import { csvFileErrorRows } from "../intake/CsvErrors.ts"
import { retryLineage } from "../intake/RetryLineage.ts"
import type { RowError } from "../intake/RowError.ts"
import { validateCsvFile } from "../intake/Validate.ts"
import type { CheckedRow, ValidRow } from "../intake/CheckRecord.ts"
import type { Batch, Row, RowRetry } from "../store/Model.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { isRetryable } from "../store/Model.ts"
import { placeChild, type RetryPlacement, RetryRefusal, RetryRefused } from "./RetryBatch.ts"

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
      return "rejected at intake, never sent: pay it, corrected, in a new file (its id is free)"
    case "skipped":
      return "skipped, never sent (the balance did not cover it): a retry pays only what the service failed"
    case "validated":
      return "not sent yet (validated): run its batch to its end first"
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

/**
 * A row without an id (the input had none) is matched by what a fix may not change and the file names
 * uniquely: description (by default `Payout FILE line N`), amount, currency and e-mail.
 */
const contentOf = (row: { readonly description: string; readonly amountMinor: number | null; readonly currency: string; readonly email: string }) =>
  [row.description, row.amountMinor ?? "", row.currency, row.email].join("\u0000")

const matchById = (row: ValidRow, id: string, originals: ReadonlyMap<string, Row>, parent: Batch): Either.Either<Row, RowError> => {
  const original = originals.get(canonicalId(id))
  return original === undefined
    ? Either.left({ line: row.line, column: "id", value: id, reason: `id "${visible(id)}" is not in batch ${parent.batchId} (${visible(parent.fileName)})` })
    : Either.right(original)
}

const matchWithoutId = (row: ValidRow, candidates: ReadonlyArray<Row>, parent: Batch): Either.Either<Row, RowError> => {
  if (candidates.length === 1) return Either.right(candidates[0])
  const what = "a fix row without an id is matched by its description, amount, currency and e-mail, which may not change"
  return Either.left({
    line: row.line,
    column: "id",
    value: "",
    reason: candidates.length === 0
      ? `no row of batch ${parent.batchId} without an id has this description, amount, currency and e-mail: ${what}`
      : `rows ${candidates.map((c) => c.line).join(", ")} of batch ${parent.batchId} all match: ${what}; give the rows ids`
  })
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
  const reads = yield* Rows
  const read = yield* Stream.runCollect(validateCsvFile(fixFile, { fileName: basename(fixFile), allowRepeats: true })).pipe(Effect.either)
  if (Either.isLeft(read)) {
    const error = read.left
    if (error._tag === "FileChanged") return yield* new RetryRefused({ refusal: RetryRefusal.FixChanged({ file: fixFile }) })
    return yield* new RetryRefused({ refusal: RetryRefusal.FixRefused({ file: fixFile }), errors: csvFileErrorRows(error) })
  }
  const checked: ReadonlyArray<CheckedRow> = Chunk.toReadonlyArray(read.right)
  const wanted = new Set(checked.flatMap((r) => (r._tag === "ValidRow" && r.id !== undefined ? [canonicalId(r.id)] : [])))
  const wantedContent = new Set(checked.flatMap((r) => (r._tag === "ValidRow" && r.id === undefined ? [contentOf(r)] : [])))
  const originals = new Map<string, Row>()
  const byContent = new Map<string, Array<Row>>()
  if (wanted.size > 0 || wantedContent.size > 0) {
    yield* Stream.runForEach(reads.streamRows(accountId, parent.batchId), (row) =>
      Effect.sync(() => {
        if (row.rowId !== null) {
          const key = canonicalId(row.rowId)
          if (wanted.has(key)) originals.set(key, row)
          return
        }
        const content = contentOf(row)
        if (wantedContent.has(content)) byContent.set(content, [...(byContent.get(content) ?? []), row])
      })
    )
  }
  const errors: Array<RowError> = []
  const fixes: Array<Fix> = []
  // Parent row idx -> the fix line that took it (two lines never pay one row again).
  const fixed = new Map<number, number>()
  for (const row of checked) {
    if (row._tag === "RejectedRow") {
      errors.push(...row.errors)
      continue
    }
    const matched = row.id === undefined ? matchWithoutId(row, byContent.get(contentOf(row)) ?? [], parent) : matchById(row, row.id, originals, parent)
    if (Either.isLeft(matched)) {
      errors.push(matched.left)
      continue
    }
    const original = matched.right
    const earlier = fixed.get(original.idx)
    if (earlier !== undefined) {
      errors.push({ line: row.line, column: "id", value: row.id ?? "", reason: `row ${original.line} of batch ${parent.batchId} is already fixed by line ${earlier} of this file: a row is paid again once` })
      continue
    }
    fixed.set(original.idx, row.line)
    const why = whyNotFixable(original)
    if (why !== undefined) {
      const which = original.rowId === null ? "" : ` (id "${visible(original.rowId)}")`
      errors.push({ line: row.line, column: "id", value: row.id ?? "", reason: `row ${original.line} of batch ${parent.batchId}${which} is ${why}` })
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
    return yield* new RetryRefused({ refusal: RetryRefusal.FixLinesRefused({ file: fixFile, lines: new Set(errors.map((e) => e.line)).size }), errors })
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
      refusal: RetryRefusal.FixLinesRefused({ file: fixFile, lines: taken.length }),
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
