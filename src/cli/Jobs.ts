/**
 * What the job-folder commands' handlers share: the account (asked of the service) and a batch by id
 * prefix. Their options are in JobOptions.ts, which the command tree loads without the client or store.
 */
import { Effect } from "effect"
import { resolveAccount } from "../api/Account.ts"
import { clientLayer } from "./Connect.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { UsageError } from "./Errors.ts"
import { type ConnectionOptions, resolveConnection } from "./Settings.ts"
import type { AccountId } from "../domain/Ids.ts"

/** The account the store scopes batches by: the service's host plus its wallets' ids (asked of it). */
export const accountOf = (connection: ConnectionOptions) =>
  Effect.flatMap(resolveConnection(connection), (resolved) => Effect.provide(resolveAccount(resolved.baseUrl), clientLayer(resolved)))

/** The one batch of the account whose id starts with `id`. */
export const findBatch = (account: AccountId, id: string) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const prefix = id.trim().toLowerCase()
    if (prefix.length < 4) return yield* new UsageError({ reason: `batch id "${id}" is too short: give at least 4 characters` })
    const found = (yield* batches.listBatches(account)).filter((b) => b.batchId.startsWith(prefix))
    if (found.length === 0) return yield* new UsageError({ reason: `no batch ${id} in this account's state store` })
    if (found.length > 1) return yield* new UsageError({ reason: `"${id}" matches ${found.length} batches: give more of the id` })
    return found[0]
  })
