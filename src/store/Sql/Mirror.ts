/** The listing mirror, account alarms and row alarms: one SQL for both dialects. */
import { Chunk, Effect, Option, Schema, Stream } from "effect"
import { AccountAlarm, type DayRead, KnownPayout, MirrorDay, MirroredPayout } from "../MirrorModel.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { decoder, decodeRows, ROW_COLUMNS } from "./Columns.ts"
import { type Db, eachPart, oneOf, StoreDb } from "./Db.ts"

const decodePayouts = decoder(MirroredPayout)
const decodeDays = decoder(MirrorDay)
const decodeKnown = decoder(KnownPayout)
const decodeAlarms = decoder(AccountAlarm)
const decodeIdxs = decoder(Schema.Struct({ idx: Schema.Number }))
const decodePrevious = decoder(Schema.Struct({ hash: Schema.String, maxTotal: Schema.Number, reads: Schema.Number, readAt: Schema.Number }))

const PAYOUT_COLUMNS = `reference, day, token, description, amount_minor, currency, status, fee_minor, created_at, first_seen_at`
/** Listing rows per upsert (13 parameters each). */
const UPSERT_CHUNK = 500

export const makeMirror = (db: Db) => {
  const { sql } = db

  const mirrorDays: StoreDriver["mirrorDays"] = (accountId, days) =>
    days.length === 0
      ? Effect.succeed([])
      : db.read(eachPart(oneOf(sql, sql`day`, days), (where) =>
        sql`SELECT day, closed, hash, payouts, max_total, reads, read_at FROM listing_days
          WHERE account_id = ${accountId} AND ${where}`.pipe(Effect.flatMap(decodeDays))))

  /**
   * One complete read of a day, inside a write: its payouts (each reference once) and the day's record,
   * closed when asked and the same as the read before it. One read of a day at a time: PostgreSQL takes
   * a lock on the day across machines (SQLite's writer is already alone), so each counts the reads before it.
   */
  const saveDayRead = (accountId: string, read: DayRead) =>
    Effect.gen(function* () {
      yield* sql.onDialectOrElse({
        pg: () => sql`SELECT pg_advisory_xact_lock(hashtextextended(${`listing_days/${accountId}/${read.day}`}, 0))`,
        orElse: () => Effect.void
      })
      const [before] = yield* sql`SELECT hash, max_total, reads, read_at FROM listing_days
        WHERE account_id = ${accountId} AND day = ${read.day}`.pipe(Effect.flatMap(decodePrevious))
      const payouts = [...new Map(read.payouts.map((p) => [p.reference, p])).values()]
      for (let i = 0; i < payouts.length; i += UPSERT_CHUNK) {
        yield* sql`INSERT INTO listing ${sql.insert(
          payouts.slice(i, i + UPSERT_CHUNK).map((p) => ({
            account_id: accountId,
            reference: p.reference,
            day: read.day,
            token: p.token,
            description: p.description,
            amount_minor: p.amountMinor,
            currency: p.currency,
            status: p.status,
            fee_minor: p.feeMinor,
            created_at: p.createdAt,
            first_seen_at: read.at,
            // The day's previous read: a payout not in it was not visible then (the lag's evidence).
            first_seen_prev_read: before?.readAt ?? null,
            last_seen_at: read.at
          }))
        )} ON CONFLICT (account_id, reference) DO UPDATE SET
            day = excluded.day, token = excluded.token, description = excluded.description,
            amount_minor = excluded.amount_minor, currency = excluded.currency, status = excluded.status,
            fee_minor = excluded.fee_minor, last_seen_at = excluded.last_seen_at`
      }
      const closed = read.closeIfSame && before !== undefined && before.hash === read.hash ? 1 : 0
      yield* sql`INSERT INTO listing_days ${sql.insert({
        account_id: accountId,
        day: read.day,
        closed,
        hash: read.hash,
        payouts: read.payouts.length,
        max_total: Math.max(read.maxTotal, before?.maxTotal ?? 0),
        reads: (before?.reads ?? 0) + 1,
        read_at: read.at
      })} ON CONFLICT (account_id, day) DO UPDATE SET closed = excluded.closed, hash = excluded.hash,
          payouts = excluded.payouts, max_total = excluded.max_total, reads = excluded.reads, read_at = excluded.read_at`
    })

  /** Reads of several days in one transaction (one commit for a span's 90 days); days locked in order, as every writer locks them. */
  const saveDayReads: StoreDriver["saveDayReads"] = (accountId, reads) =>
    reads.length === 0
      ? Effect.void
      : db.write(Effect.forEach([...reads].sort((a, b) => a.day.localeCompare(b.day)), (read) => saveDayRead(accountId, read), { discard: true })).pipe(
        Effect.withSpan("MirrorStore.saveDayReads")
      )

  /** Mirrored payouts whose `column` (token or reference) is one of `keys`. */
  const mirrorBy = (column: "token" | "reference") => (accountId: string, keys: ReadonlyArray<string>) =>
    keys.length === 0
      ? Effect.succeed([])
      : db.read(eachPart(oneOf(sql, sql.literal(column), [...new Set(keys)]), (where) =>
        sql`SELECT ${sql.literal(PAYOUT_COLUMNS)} FROM listing WHERE account_id = ${accountId} AND ${where}`.pipe(
          Effect.flatMap(decodePayouts)
        )))

  // An explicit `l.token IS NOT NULL`: the partial index on the listing's tokens is then usable.
  const listedRows: StoreDriver["listedRows"] = (accountId, batchId, state) =>
    db.read(
      sql`SELECT DISTINCT r.idx AS idx FROM rows r JOIN listing l ON l.account_id = r.account_id AND l.token = r.token
        WHERE r.account_id = ${accountId} AND r.batch_id = ${batchId} AND r.state = ${state} AND l.token IS NOT NULL
        ORDER BY r.idx`.pipe(Effect.flatMap(decodeIdxs), Effect.map((rows) => rows.map((r) => r.idx)))
    )

  const mirrorOfDays: StoreDriver["mirrorOfDays"] = (accountId, fromDay, toDay) =>
    Stream.paginateChunkEffect("", (after: string) =>
      db.read(
        sql`SELECT ${sql.literal(PAYOUT_COLUMNS)} FROM listing WHERE account_id = ${accountId}
          AND day >= ${fromDay} AND day <= ${toDay} AND reference > ${after} ORDER BY reference LIMIT 1000`.pipe(
          Effect.flatMap(decodePayouts)
        )
      ).pipe(
        Effect.map((rows) => [
          Chunk.fromIterable(rows),
          rows.length < 1000 ? Option.none<string>() : Option.some(rows[rows.length - 1].reference)
        ] as const)
      )
    )

  const knownPayouts: StoreDriver["knownPayouts"] = (accountId, since) =>
    db.read(
      sql`SELECT r.reference AS reference, r.token AS token, r.amount_minor AS amount_minor, r.currency AS currency,
          r.submitted_at AS answered_at, l.first_seen_at AS listed_at, l.first_seen_prev_read AS listed_prev_read
        FROM rows r LEFT JOIN listing l ON l.account_id = r.account_id AND l.reference = r.reference
        WHERE r.account_id = ${accountId} AND r.reference IS NOT NULL AND r.submitted_at >= ${since}`.pipe(
        Effect.flatMap(decodeKnown)
      )
    )

  const accountAlarm: StoreDriver["accountAlarm"] = (accountId) =>
    db.read(
      sql`SELECT seq, at, reason FROM account_alarms WHERE account_id = ${accountId} AND cleared_at IS NULL
        ORDER BY seq LIMIT 1`.pipe(Effect.flatMap(decodeAlarms), Effect.map((rows) => Option.fromNullable(rows[0])))
    )

  // At most one open alarm per account: a second raise keeps the first (on PostgreSQL, across
  // machines, by the partial unique index).
  const raiseAccountAlarm: StoreDriver["raiseAccountAlarm"] = (accountId, reason, at) =>
    db.write(
      sql`INSERT INTO account_alarms (account_id, at, reason) SELECT ${accountId}, CAST(${at} AS BIGINT), ${reason}
        WHERE NOT EXISTS (SELECT 1 FROM account_alarms WHERE account_id = ${accountId} AND cleared_at IS NULL)
        ${sql.onDialectOrElse({ pg: () => sql`ON CONFLICT (account_id) WHERE cleared_at IS NULL DO NOTHING`, orElse: () => sql`` })}`
    ).pipe(Effect.asVoid)

  const clearAccountAlarm: StoreDriver["clearAccountAlarm"] = (accountId, by, why, at) =>
    db.write(
      Effect.map(
        sql`UPDATE account_alarms SET cleared_at = ${at}, cleared_by = ${by}, cleared_why = ${why}
          WHERE account_id = ${accountId} AND cleared_at IS NULL RETURNING seq`,
        (rows) => rows.length
      )
    )

  const setRowAlarm: StoreDriver["setRowAlarm"] = (accountId, batchId, idx, alarm, candidates) =>
    db.write(
      sql`UPDATE rows SET alarm = ${alarm}, candidates = ${alarm === null ? null : JSON.stringify(candidates)}
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${idx}`
    ).pipe(Effect.asVoid)

  const intentsOf = (accountId: string, batchId: string, owner: string, to: string | null) =>
    db.write(
      sql`UPDATE rows SET intent_owner = ${to} WHERE account_id = ${accountId} AND batch_id = ${batchId}
        AND intent_owner = ${owner} AND state IN ('unknown', 'submitting')`
    ).pipe(Effect.asVoid)

  const flaggedRows: StoreDriver["flaggedRows"] = (accountId, batchId) =>
    db.read(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId}
        AND (alarm IS NOT NULL OR resends > 0) ORDER BY idx`.pipe(Effect.flatMap(decodeRows))
    )

  return {
    flaggedRows,
    mirrorDays,
    saveDayReads,
    mirrorByTokens: mirrorBy("token"),
    mirrorByReferences: mirrorBy("reference"),
    listedRows,
    mirrorOfDays,
    knownPayouts,
    accountAlarm,
    raiseAccountAlarm,
    clearAccountAlarm,
    setRowAlarm,
    releaseIntents: (accountId: string, batchId: string, owner: string) => intentsOf(accountId, batchId, owner, null),
    adoptIntents: (accountId: string, batchId: string, from: string, to: string) => intentsOf(accountId, batchId, from, to)
  } satisfies Partial<StoreDriver>
}

/** The listing mirror, account and row alarms, intent owners. */
export class MirrorStore extends Effect.Service<MirrorStore>()("store/MirrorStore", { effect: Effect.map(StoreDb, makeMirror) }) {}
