/** Reading rows, their events, and the account's ids, repeats and phones: one SQL for both dialects. */
import type { Fragment } from "@effect/sql/Statement"
import { Chunk, DateTime, Effect, Option, Schema, Stream } from "effect"
import { canonicalId } from "../../domain/Text.ts"
import { type Page, PhoneRecipient, type Row, type StoreError } from "../Model.ts"
import { IN_DOUBT_STATES } from "../RowState.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decodeEvents, decodeMatches, decoder, decodeRows, EVENT_COLUMNS, ROW_COLUMNS } from "./Columns.ts"
import { chunksOf, type Db, eachPart, oneOf, StoreDb } from "./Db.ts"

const PAGE = 1_000
/** Narrow rows (three columns): bigger pages. */
const PENDING_PAGE = 10_000
/** Phones asked at once on SQLite: a worker's chunk (about 4,000 rows) in one statement, within its bound parameters. */
const PHONE_CHUNK = 5_000

const decodeRecipients = decoder(PhoneRecipient)
const decodePending = decoder(Schema.Struct({ idx: Schema.Number, currency: Schema.String, amountMinor: Schema.NullOr(Schema.Number) }))
const decodeEarliest = decoder(Schema.Struct({ earliest: Schema.NullOr(Schema.DateTimeUtcFromNumber) }))

export const makeReads = (db: Db) => {
  const { sql } = db

  // The limit is written into the statement, not bound: SQLite's one-row look-up (a row by idx, by
  // reference, by token) took 28 µs with `LIMIT ?` against 11 µs with a literal (better-sqlite3, 29 columns).
  const selectRows = (where: Fragment, limit = 2) =>
    db.read(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows WHERE ${where} ORDER BY idx LIMIT ${sql.literal(String(Math.max(0, Math.trunc(limit))))}`.pipe(
        Effect.flatMap(decodeRows)
      )
    )

  const firstRow = (where: Fragment) => Effect.map(selectRows(where, 1), (rows) => Option.fromNullable(rows[0]))

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

  const streamPending: StoreDriver["streamPending"] = (accountId, batchId) =>
    Stream.paginateChunkEffect(-1, (afterIdx: number) =>
      db.read(
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

  const earliestIntent: StoreDriver["earliestIntent"] = (accountId, batchId) =>
    db.read(
      sql`SELECT MIN(intent_at) AS earliest FROM rows
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND state IN ${sql.in(IN_DOUBT_STATES)}`.pipe(
        Effect.flatMap(decodeEarliest)
      )
    ).pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.earliest)))

  /** Rows of the account's other batches (not rejected) whose `column` is one of `keys`, by batch and idx. */
  const matches = (accountId: string, column: "id_key" | "repeat_key", keys: ReadonlyArray<string>, excludeBatchId: string, extra: Fragment) => {
    // SQLite, left to itself, walks every row of the account in primary-key order to skip the sort.
    const index = sql.onDialectOrElse({
      sqlite: () => sql`INDEXED BY ${sql.literal(column === "id_key" ? "rows_by_id_key" : "rows_by_repeat_key")}`,
      orElse: () => sql``
    })
    return keys.length === 0
      ? Effect.succeed([])
      : db.read(eachPart(oneOf(sql, sql`r.${sql.literal(column)}`, [...new Set(keys)]), (where) =>
        sql`SELECT r.${sql.literal(column)} AS key, r.batch_id, b.file_name, r.idx, r.line, r.state
          FROM rows r ${index} JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
          WHERE r.account_id = ${accountId} AND ${where}
            AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected' ${extra}
          ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeMatches))))
  }

  // Ids are matched in their canonical form (`S-1001` is `s-1001`), each match's key being that form.
  const existingIds: StoreDriver["existingIds"] = (accountId, ids, excludeBatchId) =>
    matches(accountId, "id_key", ids.map(canonicalId), excludeBatchId, sql``).pipe(Effect.withSpan("Rows.existingIds"))

  const recentRepeats: StoreDriver["recentRepeats"] = (accountId, repeatKeys, since, excludeBatchId) => {
    const ms = DateTime.toEpochMillis(since)
    return matches(accountId, "repeat_key", repeatKeys, excludeBatchId, sql`AND (b.created_at >= ${ms} OR r.intent_at >= ${ms})`).pipe(
      Effect.withSpan("Rows.recentRepeats")
    )
  }

  // Claimed rows only (intent_at set: sent or maybe sent), through the index rows_by_phone.
  const phoneRecipients: StoreDriver["phoneRecipients"] = (accountId, phones, excludeBatchId) =>
    Effect.forEach(chunksOf([...new Set(phones)], PHONE_CHUNK), (chunk) =>
      db.read(
        sql`SELECT r.phone, r.name, r.batch_id, b.file_name, r.line
          FROM rows r JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
          WHERE r.account_id = ${accountId} AND r.phone IN ${sql.in(chunk)} AND r.intent_at IS NOT NULL
            AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected'
          ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeRecipients))
      )
    ).pipe(Effect.map((found) => found.flat()), Effect.withSpan("Rows.phoneRecipients"))

  const events: StoreDriver["events"] = (accountId, batchId, idx) =>
    db.read(
      sql`SELECT ${sql.literal(EVENT_COLUMNS)} FROM row_events
        WHERE account_id = ${accountId} AND batch_id = ${batchId} ${idx === undefined ? sql`` : sql`AND idx = ${idx}`}
        ORDER BY seq`.pipe(Effect.flatMap(decodeEvents))
    )

  const getRow: StoreDriver["getRow"] = (accountId, batchId, idx) =>
    firstRow(sql`account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${idx}`)
  const streamRowsInStates: StoreDriver["streamRowsInStates"] = (accountId, batchId, states, size = PAGE) =>
    paged((afterIdx) => rowsInStates(accountId, batchId, states, { afterIdx, limit: size }), size)
  const streamRows: StoreDriver["streamRows"] = (accountId, batchId, size = PAGE) =>
    paged((afterIdx) => selectRows(sql`account_id = ${accountId} AND batch_id = ${batchId} AND idx > ${afterIdx}`, size), size)

  return {
    getRow,
    rowsInStates,
    streamRowsInStates,
    streamRows,
    streamPending,
    earliestIntent,
    findRowByReference: (accountId: string, reference: string) => firstRow(sql`account_id = ${accountId} AND reference = ${reference}`),
    findRowByToken: (accountId: string, token: string) => firstRow(sql`account_id = ${accountId} AND token = ${token}`),
    existingIds,
    recentRepeats,
    phoneRecipients,
    events
  } satisfies Partial<StoreDriver>
}

/** Rows read back: by state, paged, by reference or token, their events, and other batches' ids, repeats and phones. */
export class Rows extends Effect.Service<Rows>()("store/Rows", { effect: Effect.map(StoreDb, makeReads) }) {}
