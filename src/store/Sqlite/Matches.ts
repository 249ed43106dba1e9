/** The SQLite dialect of the cross-batch lookup of ids and repeats (the other row reads are in RowReads.ts). */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { MatchQuery } from "../RowReads.ts"
import { chunksOf, decodeMatches } from "./Queries.ts"

const IN_CHUNK = 500

export const sqliteMatches =
  (sql: SqlClient.SqlClient): MatchQuery =>
  (accountId, column, keys, excludeBatchId, extra) =>
    Effect.forEach(chunksOf(keys, IN_CHUNK), (chunk) =>
      // INDEXED BY: left to itself, SQLite walks every row of the account in primary-key order to
      // skip the sort, one full scan per chunk of keys (quadratic over a big intake).
      sql`SELECT r.${sql.literal(column)} AS key, r.batch_id, b.file_name, r.idx, r.line, r.state
        FROM rows r INDEXED BY ${sql.literal(column === "id_key" ? "rows_by_id_key" : "rows_by_repeat_key")}
        JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
        WHERE r.account_id = ${accountId} AND r.${sql.literal(column)} IN ${sql.in(chunk)}
          AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected' ${extra}
        ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeMatches))
    ).pipe(Effect.map((found) => found.flat()))
