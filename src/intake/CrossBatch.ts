/**
 * A new file's rows against the account's other batches: ids already used, repeats of (phone, amount,
 * operator) without ids within the repeat window, and the guards. Asked of the store a group of rows at
 * a time, in file order; the same for `payouts run` (which then loads the rows) and for `payouts
 * validate` (which loads nothing), so both refuse the same rows for the same reasons.
 */
import type { DateTime } from "effect"
import { Effect } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { formatAmount } from "../domain/Money.ts"
import { canonicalId, visible } from "../domain/Text.ts"
import type { PayoutCurrency } from "../domain/Operators.ts"
import type { RowMatch } from "../store/Model.ts"
import { SETTLED_FAILURE_STATES } from "../store/RowState.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { type GuardSettings, guardsActive, makeIntakeGuards } from "./Guards.ts"
import { type RetryLineage, retryLineage } from "./RetryLineage.ts"
import type { RowError } from "./RowError.ts"
import { historyShares, type PhoneRow } from "./SharedPhones.ts"
import { repeatKeyOf } from "./ValidateKeys.ts"

/** What the cross-batch checks read of a row valid on its own (a `ValidRow` is one). */
export interface IntakeValidRow {
  readonly _tag: "ValidRow"
  readonly line: number
  readonly index: number
  readonly id: string | undefined
  readonly phone: string
  /** In minor units. */
  readonly amountMinor: number
  readonly operator: string
  readonly currency: PayoutCurrency
  /** Compared with the names other batches paid the same phone to (SharedPhones.ts). */
  readonly name: string
}

/** A row refused on its own or as a duplicate in its file (a `RejectedRow` is one). */
export interface IntakeRejectedRow {
  readonly _tag: "RejectedRow"
  readonly line: number
  readonly index: number
  readonly id: string | undefined
  readonly errors: ReadonlyArray<RowError>
}

export type IntakeRow = IntakeValidRow | IntakeRejectedRow

const NONE: ReadonlyArray<RowError> = []

export interface CrossBatchSettings {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly allowRepeats: boolean
  /** Rows of other batches created or claimed since then count as repeats. */
  readonly since: DateTime.Utc
  readonly guards: GuardSettings
}

/**
 * The matches that still refuse a row of a `payouts retry` batch (all of them for any other batch).
 * A retry batch may use again the ids of its ancestors' rows that ended failed, cancelled or expired
 * (proven unpaid), and repeat their content; a match in any other batch, or an ancestor's row in any
 * other state, still refuses the row, so a file reusing such an id outside a retry is refused.
 */
const refusing = (hits: ReadonlyArray<RowMatch>, lineage: RetryLineage, column: "row_id" | "repeat_key") =>
  lineage.ancestors.size === 0
    ? hits
    : hits.filter((m) => !(lineage.ancestors.has(m.batchId) && (column === "repeat_key" || SETTLED_FAILURE_STATES.includes(m.state))))

/** A row that ended unpaid is paid again, corrected, by `retry --fix`, never by a new file (issue 31). */
const repayHint = (match: RowMatch): string =>
  SETTLED_FAILURE_STATES.includes(match.state)
    ? `: to pay it again with a corrected phone, operator or name, put the corrected row in a CSV of its own and run payouts retry ${match.batchId} --fix FILE`
    : ""

/** What the other batches hold of a group's ids and repeat keys: the matches that refuse a row. */
export interface Found {
  readonly byId: ReadonlyMap<string, RowMatch>
  readonly byKey: ReadonlyMap<string, RowMatch>
}

/**
 * For each row of a group, the errors the other batches and the guards add to it (often none). Also
 * in two steps, for a caller holding its rows as columns (DryRun.ts): `lookup` asks the store about
 * the ids and repeat keys alone, and only a group with matches, or with the guards on, needs its rows
 * as objects for `extrasOf`; a group without is known to get nothing, with no object made per row.
 */
export const makeCrossBatch = (settings: CrossBatchSettings) =>
  Effect.gen(function* () {
    const reads = yield* Rows
    const { accountId, batchId } = settings
    const guards = yield* makeIntakeGuards(accountId, settings.guards)
    const lineage = yield* retryLineage(accountId, batchId)
    const guarded = guardsActive(settings.guards)

    /**
     * `ids`: of the rows valid so far that have one, as written; `keys`: the repeat keys of those that
     * have none (none when repeats are allowed). Ids are asked, and found (`byId`), in their canonical
     * form (`canonicalId`).
     */
    const lookup = (ids: ReadonlyArray<string>, keys: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const idHits = ids.length === 0 ? [] : yield* reads.existingIds(accountId, ids, batchId)
        const keyHits = keys.length === 0 ? [] : yield* reads.recentRepeats(accountId, keys, settings.since, batchId)
        const found: Found = {
          byId: new Map(refusing(idHits, lineage, "row_id").map((m) => [m.key, m])),
          byKey: new Map(refusing(keyHits, lineage, "repeat_key").map((m) => [m.key, m]))
        }
        return found
      })

    /** The group's extras from what `lookup` found for its ids and keys. */
    const extrasOf = (group: ReadonlyArray<IntakeRow>, { byId, byKey }: Found) =>
      Effect.gen(function* () {
        // Most rows get nothing: they share one empty array.
        const extras: Array<ReadonlyArray<RowError>> = group.map((row) => {
          if (row._tag !== "ValidRow" || (byId.size === 0 && byKey.size === 0)) return NONE
          const extra: Array<RowError> = []
          const id = row.id === undefined || byId.size === 0 ? undefined : byId.get(canonicalId(row.id))
          if (id !== undefined) {
            extra.push({ line: row.line, column: "id", value: row.id ?? "", reason: `id "${visible(row.id ?? "")}" was already used in ${visible(id.fileName)} line ${id.line} (${id.state})${repayHint(id)}` })
          }
          const key = row.id === undefined && byKey.size > 0 ? byKey.get(repeatKeyOf(row.phone, row.amountMinor, row.operator)) : undefined
          if (key !== undefined) {
            extra.push({
              line: row.line,
              column: "phone+amount+operator",
              value: `${row.phone} ${row.amountMinor} ${row.operator}`,
              reason: `same phone, amount and operator as ${key.fileName} line ${key.line} within the repeat window, without an id: a double entry? (give rows ids, or allow repeats)`
            })
          }
          return extra.length === 0 ? NONE : extra
        })
        if (!guarded) return extras
        // The guards judge only the rows that would otherwise be paid, in file order.
        const payable = group.flatMap((row, i) => (row._tag === "ValidRow" && extras[i].length === 0 ? [{ row, i }] : []))
        const breaches = yield* guards.check(payable.map(({ row }) => row))
        payable.forEach(({ row, i }, k) => {
          const broken = breaches[k]
          if (broken !== undefined) {
            extras[i] = [{ line: row.line, column: broken.column, value: broken.column === "phone" ? row.phone : formatAmount(row.amountMinor, row.currency), reason: broken.reason }]
          }
        })
        return extras
      })

    const check = Effect.fn("Intake.crossBatch")(function* (group: ReadonlyArray<IntakeRow>) {
      const ids: Array<string> = []
      const keys: Array<string> = []
      for (const r of group) {
        if (r._tag !== "ValidRow") continue
        if (r.id !== undefined) ids.push(r.id)
        // Repeats allowed: none is asked, so no key is made.
        else if (!settings.allowRepeats) keys.push(repeatKeyOf(r.phone, r.amountMinor, r.operator))
      }
      return yield* extrasOf(group, yield* lookup(ids, keys))
    })
    /** The rows (about to be paid) whose phone another batch sent to another name: listed, never refused. */
    const history = (rows: ReadonlyArray<PhoneRow>) =>
      rows.length === 0
        ? Effect.succeed([])
        : Effect.map(reads.phoneRecipients(accountId, rows.map((r) => r.phone), batchId), (earlier) => historyShares(rows, earlier))

    /** `history` of a group's rows that nothing refuses (`extras` as `check` gave them). */
    const historyOf = (group: ReadonlyArray<IntakeRow>, extras: ReadonlyArray<ReadonlyArray<RowError>>) =>
      history(group.filter((row, i): row is IntakeValidRow => row._tag === "ValidRow" && extras[i].length === 0))

    return Object.assign(check, { lookup, extrasOf, guarded, history, historyOf })
  })
