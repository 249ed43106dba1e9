/** The listing mirror, account alarms and row alarms, for the SQLite adapter. */
import type { SqlClient } from "@effect/sql"
import { Chunk, Effect, Option, Schema, Stream } from "effect"
import { AccountAlarm, KnownPayout, MirrorDay, MirroredPayout } from "../MirrorModel.ts"
import type { StoreDriver } from "../StoreDriver.ts"
import { chunksOf, decodeRows, ROW_COLUMNS } from "./Queries.ts"
import { catchSql, type WriteTransaction } from "./Transaction.ts"
import { previousRead, writeDayRead } from "../SharedSql.ts"

const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => Effect.orDie(decode(rows))
}
const decodePayouts = decoder(MirroredPayout)
const decodeDays = decoder(MirrorDay)
const decodeKnown = decoder(KnownPayout)
const decodeAlarms = decoder(AccountAlarm)
const decodeIdxs = decoder(Schema.Struct({ idx: Schema.Number }))

const PAYOUT_COLUMNS = `reference, day, token, description, amount_minor, currency, status, fee_minor, created_at, first_seen_at`

export const makeMirror = (sql: SqlClient.SqlClient, write: WriteTransaction) => {
  const mirrorDays: StoreDriver["mirrorDays"] = (accountId, days) =>
    days.length === 0
      ? Effect.succeed([])
      : catchSql(
          Effect.flatMap(
            Effect.forEach(chunksOf(days, 500), (chunk) =>
              sql`SELECT day, closed, hash, payouts, max_total, reads, read_at FROM listing_days
                WHERE account_id = ${accountId} AND day IN ${sql.in(chunk)}`
            ),
            (rows) => decodeDays(rows.flat())
          )
        )

  const saveDayRead: StoreDriver["saveDayRead"] = (accountId, read) =>
    write(
      Effect.gen(function* () {
        const before = yield* previousRead(sql, accountId, read.day)
        yield* writeDayRead(sql, accountId, read, before, 200)
      })
    ).pipe(Effect.withSpan("StateStore.saveDayRead"))

  /** Mirrored payouts whose `column` (token or reference) is one of `keys`, 500 keys a query. */
  const mirrorBy = (column: "token" | "reference") => (accountId: string, keys: ReadonlyArray<string>) =>
    keys.length === 0
      ? Effect.succeed([])
      : catchSql(
          Effect.flatMap(
            Effect.forEach(chunksOf([...new Set(keys)], 500), (chunk) =>
              sql`SELECT ${sql.literal(PAYOUT_COLUMNS)} FROM listing
                WHERE account_id = ${accountId} AND ${sql.literal(column)} IN ${sql.in(chunk)}`
            ),
            (rows) => decodePayouts(rows.flat())
          )
        )

  const mirrorByTokens: StoreDriver["mirrorByTokens"] = mirrorBy("token")
  const mirrorByReferences: StoreDriver["mirrorByReferences"] = mirrorBy("reference")

  // An explicit `l.token IS NOT NULL`: the partial index on the listing's tokens is then usable.
  const listedRows: StoreDriver["listedRows"] = (accountId, batchId, state) =>
    catchSql(
      sql`SELECT DISTINCT r.idx AS idx FROM rows r JOIN listing l ON l.account_id = r.account_id AND l.token = r.token
        WHERE r.account_id = ${accountId} AND r.batch_id = ${batchId} AND r.state = ${state} AND l.token IS NOT NULL
        ORDER BY r.idx`.pipe(Effect.flatMap(decodeIdxs), Effect.map((rows) => rows.map((r) => r.idx)))
    )

  const mirrorOfDays: StoreDriver["mirrorOfDays"] = (accountId, fromDay, toDay) =>
    Stream.paginateChunkEffect("", (after: string) =>
      catchSql(
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
    catchSql(
      sql`SELECT r.reference AS reference, r.token AS token, r.amount_minor AS amount_minor, r.currency AS currency,
          r.submitted_at AS answered_at, l.first_seen_at AS listed_at, l.first_seen_prev_read AS listed_prev_read
        FROM rows r LEFT JOIN listing l ON l.account_id = r.account_id AND l.reference = r.reference
        WHERE r.account_id = ${accountId} AND r.reference IS NOT NULL AND r.submitted_at >= ${since}`.pipe(
        Effect.flatMap(decodeKnown)
      )
    )

  const accountAlarm: StoreDriver["accountAlarm"] = (accountId) =>
    catchSql(
      sql`SELECT seq, at, reason FROM account_alarms WHERE account_id = ${accountId} AND cleared_at IS NULL
        ORDER BY seq LIMIT 1`.pipe(Effect.flatMap(decodeAlarms), Effect.map((rows) => Option.fromNullable(rows[0])))
    )

  const raiseAccountAlarm: StoreDriver["raiseAccountAlarm"] = (accountId, reason, at) =>
    write(
      Effect.gen(function* () {
        const open = yield* sql`SELECT seq FROM account_alarms WHERE account_id = ${accountId} AND cleared_at IS NULL LIMIT 1`
        if (open.length === 0) yield* sql`INSERT INTO account_alarms ${sql.insert({ account_id: accountId, at, reason })}`
      })
    )

  const clearAccountAlarm: StoreDriver["clearAccountAlarm"] = (accountId, by, why, at) =>
    write(
      Effect.map(
        sql`UPDATE account_alarms SET cleared_at = ${at}, cleared_by = ${by}, cleared_why = ${why}
          WHERE account_id = ${accountId} AND cleared_at IS NULL RETURNING seq`,
        (rows) => rows.length
      )
    )

  const setRowAlarm: StoreDriver["setRowAlarm"] = (accountId, batchId, idx, alarm, candidates) =>
    write(
      sql`UPDATE rows SET alarm = ${alarm}, candidates = ${alarm === null ? null : JSON.stringify(candidates)}
        WHERE account_id = ${accountId} AND batch_id = ${batchId} AND idx = ${idx}`
    ).pipe(Effect.asVoid)

  const releaseIntents: StoreDriver["releaseIntents"] = (accountId, batchId, owner) =>
    write(
      sql`UPDATE rows SET intent_owner = NULL WHERE account_id = ${accountId} AND batch_id = ${batchId}
        AND intent_owner = ${owner} AND state IN ('unknown', 'submitting')`
    ).pipe(Effect.asVoid)

  const adoptIntents: StoreDriver["adoptIntents"] = (accountId, batchId, from, to) =>
    write(
      sql`UPDATE rows SET intent_owner = ${to} WHERE account_id = ${accountId} AND batch_id = ${batchId}
        AND intent_owner = ${from} AND state IN ('unknown', 'submitting')`
    ).pipe(Effect.asVoid)

  const flaggedRows: StoreDriver["flaggedRows"] = (accountId, batchId) =>
    catchSql(
      sql`SELECT ${sql.literal(ROW_COLUMNS)} FROM rows WHERE account_id = ${accountId} AND batch_id = ${batchId}
        AND (alarm IS NOT NULL OR resends > 0) ORDER BY idx`.pipe(Effect.flatMap(decodeRows))
    )

  return {
    flaggedRows,
    mirrorDays,
    saveDayRead,
    mirrorByTokens,
    mirrorByReferences,
    listedRows,
    mirrorOfDays,
    knownPayouts,
    accountAlarm,
    raiseAccountAlarm,
    clearAccountAlarm,
    setRowAlarm,
    releaseIntents,
    adoptIntents
  } satisfies Partial<StoreDriver>
}
