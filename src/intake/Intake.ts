/**
 * From a CSV file to a batch in the state store, in one streamed pass: the rows of the one intake
 * (IntakeRows.ts) inserted as they come. A refused file leaves nothing in the store, so running it
 * again is refused again rather than resumed.
 */
import { DateTime, type Duration, Effect, Either, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { basename } from "node:path"
import { contentKeyOf, mintToken, rejectedRowToken, type Token } from "../domain/Token.ts"
import type { RowInput } from "../store/Model.ts"
import type { RowError } from "./RowError.ts"
import { intakeRows, payable, releaseRows } from "./IntakeRows.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { csvFileErrorRows } from "./CsvErrors.ts"
import { makeCrossBatch } from "./CrossBatch.ts"
import { retryLineage } from "./RetryLineage.ts"
import { dryRun } from "./DryRun.ts"
import { type GuardSettings, NO_GUARDS } from "./Guards.ts"
import type { CheckedRow } from "./CheckRecord.ts"
import { repeatKeyOf } from "./ValidateKeys.ts"
import type { AccountId } from "../domain/Ids.ts"
import { withLock } from "../store/RegisterLock.ts"
import { Intake } from "./IntakeResult.ts"
import { fileBatchId } from "./FileBatchId.ts"

export interface IntakeOptions {
  readonly accountId: AccountId
  /**
   * What tokens are minted from (default: the account id): the service's wallet ids, so the same
   * merchant account reached through another address (a proxy, an alias) names its payouts the same.
   */
  readonly tokenScope?: string
  readonly file: string
  readonly skipInvalid: boolean
  readonly allowRepeats: boolean
  /** Accept one phone paid under several names (SharedPhones.ts); default: refused. */
  readonly allowSharedPhone?: boolean
  readonly repeatWindow: Duration.Duration
  /** Kept with the batch so a resume runs as it started. */
  readonly options?: unknown
  /** `payouts validate`: check everything, keep nothing in the store. */
  readonly dryRun?: boolean
  /** Ceilings on a mistake (issue 12, item 13); default: none. */
  readonly guards?: GuardSettings
}

/** The account register that serializes intakes (and so the cross-batch checks) across processes. */
export const INTAKE_LOCK = "intake-lock"

const toInput = (row: CheckedRow, extra: ReadonlyArray<RowError>, token: Token): RowInput => {
  if (row._tag === "ValidRow" && extra.length === 0) {
    return {
      idx: row.index,
      token,
      line: row.line,
      rowId: row.id ?? null,
      repeatKey: repeatKeyOf(row.phone, row.amountMinor, row.operator),
      operator: row.operator,
      currency: row.currency,
      amountMinor: row.amountMinor,
      phone: row.phone,
      name: row.name,
      email: row.email,
      description: row.description,
      details: row.details
    }
  }
  const errors = row._tag === "RejectedRow" ? [...row.errors, ...extra] : extra
  const cells = row._tag === "RejectedRow" ? row.cells : { operator: row.operator, currency: row.currency, phone: row.phone, name: row.name, email: row.email }
  return {
    idx: row.index,
    token,
    line: row.line,
    rowId: row.id ?? null,
    repeatKey: null,
    operator: cells.operator ?? "",
    currency: cells.currency ?? "",
    amountMinor: row.amountMinor ?? null,
    phone: cells.phone ?? "",
    name: cells.name ?? "",
    email: cells.email ?? "",
    description: row._tag === "ValidRow" ? row.description : cells.description ?? "",
    details: row.details,
    state: "rejected",
    error: errors.map((e) => `${e.column}: ${e.reason}`).join("; ")
  }
}

export const intake = (options: IntakeOptions) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const { accountId } = options
    const batchId = yield* fileBatchId(options.file)
    const existing = yield* batches.getBatch(accountId, batchId)
    if (Option.isSome(existing) && existing.value.state !== "loading") {
      return Intake.Loaded({ batch: existing.value, resumed: true, errors: [] })
    }
    const fileName = basename(options.file)
    const since = DateTime.subtractDuration(yield* DateTime.now, options.repeatWindow)
    if (options.dryRun === true) {
      return yield* dryRun({
        accountId,
        batchId,
        allowRepeats: options.allowRepeats,
        allowSharedPhone: options.allowSharedPhone === true,
        since,
        guards: options.guards ?? NO_GUARDS,
        file: options.file,
        fileName,
        skipInvalid: options.skipInvalid
      })
    }

    // Occurrences of each content among the file's rows without ids, in file order (the token's index).
    const seenContent = new Map<string, number>()
    const tokenScope = options.tokenScope ?? accountId
    // A `payouts retry` batch's tokens are its generation's: never those of the payouts that failed.
    const { generation } = yield* retryLineage(accountId, batchId)
    const tokenOf = (row: CheckedRow, valid: boolean): Token => {
      if (!valid || row._tag !== "ValidRow") return rejectedRowToken(batchId, row.index)
      if (row.id !== undefined) return mintToken(tokenScope, { _tag: "Id", id: row.id, generation })
      const key = contentKeyOf(row.phone, row.amountMinor, row.currency, row.operator)
      const occurrence = seenContent.get(key) ?? 0
      seenContent.set(key, occurrence + 1)
      return mintToken(tokenScope, { _tag: "Content", phone: row.phone, amountMinor: row.amountMinor, currency: row.currency, operator: row.operator, occurrence, generation })
    }

    const crossBatch = yield* makeCrossBatch({ accountId, batchId, allowRepeats: options.allowRepeats, since, guards: options.guards ?? NO_GUARDS })
    // The rows stored are those of the bytes the batch id names: a file changed since fails the load.
    const { rows, tally } = yield* intakeRows(
      { batchId, file: options.file, fileName, allowRepeats: options.allowRepeats, allowSharedPhone: options.allowSharedPhone, skipInvalid: options.skipInvalid },
      { open: Effect.succeed(crossBatch), ownFirst: false }
    )
    const inputs = rows.pipe(
      Stream.mapConcat((group) => {
        const made = group.rows.map((row, i) => toInput(row, group.extras[i], tokenOf(row, payable(group, i))))
        releaseRows(group)
        return made
      })
    )
    // One intake per account at a time across every process sharing the store: the other batches' ids
    // and repeats checked above are then all committed, so two machines loading the same id at the
    // same moment accept it once (DESIGN 12).
    const created = yield* withLock(
      accountId,
      INTAKE_LOCK,
      { owner: `intake:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, ttlMs: 30_000 },
      batches.createBatch({ accountId, batchId, fileName, options: options.options }, inputs)
    ).pipe(Effect.either)
    if (Either.isLeft(created)) {
      yield* batches.deleteBatch(accountId, batchId)
      const error = created.left
      if (error._tag === "StoreError" || error._tag === "FileChanged") return yield* Effect.fail(error)
      return Intake.Refused({ batchId, errors: csvFileErrorRows(error), rows: tally.rows })
    }
    if (tally.errors.length > 0 && !options.skipInvalid) {
      yield* batches.deleteBatch(accountId, batchId)
      return Intake.Refused({ batchId, errors: tally.errors, rows: tally.rows })
    }
    return Intake.Loaded({ batch: created.right, resumed: false, errors: tally.errors, phones: tally.phones() })
  })
