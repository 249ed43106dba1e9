/** Reading rows, their events and the account's ids and repeats, for the SQLite adapter. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Chunk, DateTime, Effect, Option, Stream } from "effect"
import type { Page, Row, StoreError } from "../Model.ts"
import { IN_DOUBT_STATES } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import {
  chunksOf,
  decodeEarliest,
  decodeEvents,
  decodeMatches,
  decodePending,
  decodeRows,
  EVENT_COLUMNS,
  ROW_COLUMNS
} from "./Queries.ts"
import { catchSql } from "./Transaction.ts"

const IN_CHUNK = 500
const PAGE = 1_000
/** Narrow rows (three columns): bigger pages. */
const PENDING_PAGE = 10_000
export const makeRowQueries = (sql: SqlClient.SqlClient) => {
  const selectRows = (where: Fragment, limit = 2) =>
    catchSql(
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
      catchSql(
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
    catchSql(
      sql`SELECT MIN(intent_at) AS earliest FROM rows
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state IN ${sql.in(IN_DOUBT_STATES)}`.pipe(
        Effect.flatMap(decodeEarliest)
      )
    ).pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.earliest)))

  const matches = (
    accountId: string,
    column: "row_id" | "repeat_key",
    keys: ReadonlyArray<string>,
    excludeBatchId: string,
    extra: Fragment
  ) =>
    catchSql(
      Effect.forEach(chunksOf([...new Set(keys)], IN_CHUNK), (chunk) =>
        // INDEXED BY: left to itself, SQLite walks every row of the account in primary-key order to
        // skip the sort, one full scan per chunk of keys (quadratic over a big intake).
        sql`SELECT r.${sql.literal(column)} AS key, r.batch_id, b.file_name, r.idx, r.line, r.state
          FROM rows r INDEXED BY ${sql.literal(column === "row_id" ? "rows_by_row_id" : "rows_by_repeat_key")}
          JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
          WHERE r.account_id = ${accountId} AND r.${sql.literal(column)} IN ${sql.in(chunk)}
            AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected' ${extra}
          ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeMatches))
      )
    ).pipe(Effect.map((found) => found.flat()))

  const existingIds: StoreDriver["existingIds"] = (accountId, ids, excludeBatchId) =>
    matches(accountId, "row_id", ids, excludeBatchId, sql``).pipe(Effect.withSpan("StateStore.existingIds"))

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

  const events: StoreDriver["events"] = (accountId, batchId, idx) =>
    catchSql(
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
    events
  } satisfies Partial<StoreDriver>
}
