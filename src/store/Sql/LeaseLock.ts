/** PostgreSQL's fencing of a row write: the batch's lease share-locked in the write's own statement (DESIGN 7). */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { type Fence, StoreError } from "../Model.ts"

export const fenced = (batchId: string, fence: Fence) =>
  new StoreError({ reason: "Fenced", message: `batch ${batchId}: lease ${fence.number} of ${fence.owner} was taken over` })

/**
 * PostgreSQL's CTE `lease`: the batch's row, share-locked, when `fence` is its lease (unexpired at
 * `now` when given). Writers of one lease run together; a takeover (an UPDATE of the row) waits for
 * them, and they see any takeover committed before them. Without a fence it holds the batch against
 * deleteBatch.
 */
export const leaseCte = (sql: SqlClient.SqlClient, accountId: string, batchId: string, fence: Fence | undefined, now?: Fragment) =>
  sql`lease AS (SELECT lease_owner FROM batches WHERE account_id = ${accountId} AND batch_id = ${batchId}
    ${fence === undefined ? sql`` : sql`AND lease_owner = ${fence.owner} AND lease_fence = ${fence.number}`}
    ${now === undefined ? sql`` : sql`AND lease_expires_at > ${now}`}
    FOR SHARE)`
