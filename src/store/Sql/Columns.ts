/** The columns both dialects read, under the same names, and their decoders (each compiled once). */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Batch, type EventSource, Row, RowEvent, RowMatch } from "../Model.ts"
import { RowState } from "../RowState.ts"
import { chunksOf } from "./Db.ts"

export const ROW_COLUMNS = `account_id, batch_id, idx, line, row_id, token, repeat_key, operator, currency,
  amount_minor, phone, name, email, description, details_json AS details, state, reference, fee_minor,
  attempts, error, intent_at, submitted_at, updated_at, final_at, ended_at, resends, alarm, candidates,
  intent_owner`

export const BATCH_COLUMNS = `account_id, batch_id, file_name, created_at, updated_at, state, pause_reason,
  lease_owner, lease_expires_at, options_json AS options, approved_by, approved_at, approved_what`

export const EVENT_COLUMNS = "seq, account_id, batch_id, idx, at, from_state, to_state, source, detail"

/** A stored row that fails its schema is corruption or a bug: nothing the caller can do about it. */
export const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>> => Effect.orDie(decode(rows))
}

export const decodeRows = decoder(Row)
export const decodeBatches = decoder(Batch)
export const decodeEvents = decoder(RowEvent)
export const decodeMatches = decoder(RowMatch)
export const decodeCounts = decoder(Schema.Struct({ batchId: Schema.String, state: RowState, n: Schema.Int }))

export interface EventInput {
  readonly accountId: string
  readonly batchId: string
  readonly idx: number
  readonly at: number
  readonly from: RowState | null
  readonly to: RowState
  readonly source: EventSource
  readonly detail: string | null
}

export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<EventInput>) =>
  Effect.forEach(
    chunksOf(events, 1_000),
    (chunk) =>
      sql`INSERT INTO row_events ${sql.insert(
        chunk.map((e) => ({
          account_id: e.accountId,
          batch_id: e.batchId,
          idx: e.idx,
          at: e.at,
          from_state: e.from,
          to_state: e.to,
          source: e.source,
          detail: e.detail
        }))
      )}`,
    { discard: true }
  )
