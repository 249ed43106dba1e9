/**
 * Reading rows, their events and the account's ids and repeats: the statements both adapters run
 * word for word, each under its own guard (SQLite's error mapping; PostgreSQL's retried reads). Only
 * the cross-batch lookup of ids and repeats is said in each dialect (`MatchQuery`).
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Chunk, DateTime, Effect, Option, Schema, Stream } from "effect"
import { canonicalId } from "../domain/Text.ts"
import { type Page, PhoneRecipient, type Row, type RowMatch, type StoreError } from "./Model.ts"
import { IN_DOUBT_STATES } from "./RowState.ts"
import { chunksOf, decodeEarliest, decodeEvents, decodePending, decodeRows, EVENT_COLUMNS, ROW_COLUMNS } from "./Sqlite/Queries.ts"
import type { StoreDriver } from "./StoreDriver.ts"

const PAGE = 1_000
/** Phones asked at once: a worker's chunk (about 4,000 rows) in one statement, within SQLite's 32,766 bound parameters. */
const PHONE_CHUNK = 5_000
const decodeRecipients = (rows: ReadonlyArray<unknown>) => Effect.orDie(Schema.decodeUnknown(Schema.Array(PhoneRecipient))(rows))
/** Narrow rows (three columns): bigger pages. */
const PENDING_PAGE = 10_000

/** An adapter's guard of its statements: SqlErrors become StoreErrors (or are retried first). */
export type ReadGuard = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, SqlError> | StoreError, R>

/**
 * The rows of the account's other batches (not `excludeBatchId`, not rejected) whose `column` is one of
 * `keys` (distinct, never empty), `extra` narrowing them further, ordered by batch and idx.
 */
export type MatchQuery = (
  accountId: string,
  column: "id_key" | "repeat_key",
  keys: ReadonlyArray<string>,
  excludeBatchId: string,
  extra: Fragment
) => Effect.Effect<ReadonlyArray<typeof RowMatch.Type>, SqlError>

export const makeRowReads = (sql: SqlClient.SqlClient, read: ReadGuard, matchQuery: MatchQuery) => {
  const selectRows = (where: Fragment, limit = 2) =>
    read(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows WHERE ${where} ORDER BY idx LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows)
      )
    )

  const firstRow = (where: Fragment) =>
    Effect.map(selectRows(where, 1), (rows) => Option.fromNullable(rows[0]))

  const rowsInStates: StoreDriver["rowsInStates"] = (accountId, batchId, states, page: Page = {}) =>
    states.length === 0
      ? Effect.succeed([])
      : selectRows(
          sql`account_id = ${accountId} AND batch_id = ${batchId} AND state IN ${sql.in(states)}
            AND idx > ${page.afterIdx ?? -1}`,
          page.limit ?? PAGE
        )

  const paged = (fetch: (afterIdx: number) => Effect.Effect<ReadonlyArray<Row>, StoreError>, size: number) =>
    Stream.paginateChunkEffect(-1, (afterIdx) =>
      Effect.map(fetch(afterIdx), (rows) => [
        Chunk.fromIterable(rows),
        rows.length < size ? Option.none() : Option.some(rows[rows.length - 1].idx)
      ])
    )

  const streamRowsInStates: StoreDriver["streamRowsInStates"] = (accountId, batchId, states, size = PAGE) =>
    paged((afterIdx) => rowsInStates(accountId, batchId, states, { afterIdx, limit: size }), size)

  const streamPending: StoreDriver["streamPending"] = (accountId, batchId) =>
    Stream.paginateChunkEffect(-1, (afterIdx: number) =>
      read(
        sql`SELECT idx, currency, amount_minor FROM rows
          WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state = 'validated' AND idx > ${afterIdx}
          ORDER BY idx LIMIT ${PENDING_PAGE}`.pipe(Effect.flatMap(decodePending))
      ).pipe(
        Effect.map((rows) => [
          Chunk.fromIterable(rows.map((r) => ({ idx: r.idx, currency: r.currency, amountMinor: r.amountMinor ?? 0 }))),
          rows.length < PENDING_PAGE ? Option.none<number>() : Option.some(rows[rows.length - 1].idx)
        ] as const)
      )
    )

  const streamRows: StoreDriver["streamRows"] = (accountId, batchId, size = PAGE) =>
    paged(
      (afterIdx) => selectRows(sql`account_id = ${accountId} AND batch_id = ${batchId} AND idx > ${afterIdx}`, size),
      size
    )

  const earliestIntent: StoreDriver["earliestIntent"] = (accountId, batchId) =>
    read(
      sql`SELECT MIN(intent_at) AS earliest FROM rows
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state IN ${sql.in(IN_DOUBT_STATES)}`.pipe(
        Effect.flatMap(decodeEarliest)
      )
    ).pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.earliest)))

  const matches = (
    accountId: string,
    column: "id_key" | "repeat_key",
    keys: ReadonlyArray<string>,
    excludeBatchId: string,
    extra: Fragment
  ) => (keys.length === 0 ? Effect.succeed([]) : read(matchQuery(accountId, column, [...new Set(keys)], excludeBatchId, extra)))

  // Ids are matched in their canonical form (`S-1001` is `s-1001`), each match's key being that form.
  const existingIds: StoreDriver["existingIds"] = (accountId, ids, excludeBatchId) =>
    matches(accountId, "id_key", ids.map(canonicalId), excludeBatchId, sql``).pipe(Effect.withSpan("StateStore.existingIds"))

  const recentRepeats: StoreDriver["recentRepeats"] = (accountId, repeatKeys, since, excludeBatchId) => {
    const ms = DateTime.toEpochMillis(since)
    return matches(
      accountId,
      "repeat_key",
      repeatKeys,
      excludeBatchId,
      sql`AND (b.created_at >= ${ms} OR r.intent_at >= ${ms})`
    ).pipe(Effect.withSpan("StateStore.recentRepeats"))
  }

  // Claimed rows only (intent_at set: sent or maybe sent), through the index rows_by_phone.
  const phoneRecipients: StoreDriver["phoneRecipients"] = (accountId, phones, excludeBatchId) =>
    Effect.forEach(chunksOf([...new Set(phones)], PHONE_CHUNK), (chunk) =>
      read(
        sql`SELECT r.phone, r.name, r.batch_id, b.file_name, r.line
          FROM rows r JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
          WHERE r.account_id = ${accountId} AND r.phone IN ${sql.in(chunk)} AND r.intent_at IS NOT NULL
            AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected'
          ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeRecipients))
      )
    ).pipe(Effect.map((found) => found.flat()), Effect.withSpan("StateStore.phoneRecipients"))

  const events: StoreDriver["events"] = (accountId, batchId, idx) =>
    read(
      sql`SELECT ${sql.literal(EVENT_COLUMNS)} FROM row_events
        WHERE account_id = ${accountId} AND batch_id = ${batchId} ${idx === undefined ? sql`` : sql`AND idx = ${idx}`}
        ORDER BY seq`.pipe(Effect.flatMap(decodeEvents))
    )

  return {
    getRow: (accountId: string, batchId: string, idx: number) =>
      firstRow(sql`account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${idx}`),
    rowsInStates,
    streamRowsInStates,
    streamRows,
    streamPending,
    earliestIntent,
    findRowByReference: (accountId: string, reference: string) =>
      firstRow(sql`account_id = ${accountId} AND reference = ${reference}`),
    findRowByToken: (accountId: string, token: string) => firstRow(sql`account_id = ${accountId} AND token = ${token}`),
    existingIds,
    recentRepeats,
    phoneRecipients,
    events
  } satisfies Partial<StoreDriver>
}
