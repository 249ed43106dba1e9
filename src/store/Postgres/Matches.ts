/** The PostgreSQL dialect of the cross-batch lookup of ids and repeats (the other row reads are in RowReads.ts). */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { MatchQuery } from "../RowReads.ts"
import { decodeMatches, textArray } from "./Queries.ts"

/** One statement for any number of keys: the list goes as one array parameter. */
export const postgresMatches =
  (sql: SqlClient.SqlClient): MatchQuery =>
  (accountId, column, keys, excludeBatchId, extra) =>
    sql`SELECT r.${sql.literal(column)} AS key, r.batch_id, b.file_name, r.idx, r.line, r.state
      FROM rows r JOIN batches b ON b.account_id = r.account_id AND b.batch_id = r.batch_id
      WHERE r.account_id = ${accountId} AND r.${sql.literal(column)} = ANY(${textArray(sql, keys)})
        AND r.batch_id <> ${excludeBatchId} AND r.state <> 'rejected' ${extra}
      ORDER BY r.batch_id, r.idx`.pipe(Effect.flatMap(decodeMatches))
