/**
 * The migration step both stores share: each stored id's canonical form (`canonicalId`) in `id_key`,
 * which other batches' ids are compared with. SQL computes it for plain ASCII ids (their lower case,
 * which is what canonicalId gives them); any other id is computed here, as new rows are on insert.
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { canonicalId } from "../domain/Text.ts"

const Stored = Schema.Array(Schema.Struct({ accountId: Schema.String, batchId: Schema.String, idx: Schema.Number, rowId: Schema.String }))

/** `notPlain`: the dialect's condition "row_id holds a character outside printable ASCII (a space included)". */
export const backfillIdKeys = (sql: SqlClient.SqlClient, notPlain: Fragment) =>
  Effect.gen(function* () {
    yield* sql`UPDATE rows SET id_key = lower(row_id) WHERE row_id IS NOT NULL`
    const rows = yield* sql`SELECT account_id, batch_id, idx, row_id FROM rows WHERE row_id IS NOT NULL AND ${notPlain}`.pipe(
      Effect.flatMap((found) => Effect.orDie(Schema.decodeUnknown(Stored)(found)))
    )
    for (const row of rows) {
      yield* sql`UPDATE rows SET id_key = ${canonicalId(row.rowId)}
        WHERE account_id = ${row.accountId} AND batch_id = ${row.batchId} AND idx = ${row.idx}`
    }
  })
