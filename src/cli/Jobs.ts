/**
 * Settings shared by the job-folder commands (watch, approve, reject, resume, batches, reconcile):
 * the jobs folder, the state store inside it unless told otherwise, the account, a batch by id prefix.
 */
import { Args, Options } from "@effect/cli"
import { Config, Effect, Option } from "effect"
import { userInfo } from "node:os"
import { resolveAccount } from "../api/Account.ts"
import { clientLayer } from "./Connect.ts"
import { StateStore } from "../store/StateStore.ts"
import { UsageError } from "./Errors.ts"
import { type ConnectionOptions, resolveConnection } from "./Settings.ts"
import type { AccountId } from "../domain/Ids.ts"

export const jobsOption = Options.directory("jobs").pipe(
  Options.withDescription("The job folder (default: jobs)."),
  Options.withDefault("jobs")
)

/** `--state`, else `PAYOUTS_STATE`, else the jobs folder's pinned store, else the per-user store. */
export const jobsStateOption = Options.text("state").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("State store file (SQLite); default: the jobs folder's store if it is watched, else ~/.local/state/payouts/payouts.db. Environment: PAYOUTS_STATE."),
  Options.withFallbackConfig(Config.string("PAYOUTS_STATE")),
  Options.optional
)

export const batchArg = Args.text({ name: "BATCH" }).pipe(Args.withDescription("The batch id (or its first characters, at least 4)."))

export const byOption = Options.text("by").pipe(
  Options.withDescription("Who decides (recorded); default: the current user."),
  Options.optional
)

/** Who approves or rejects a batch: always named, never taken from the OS user (it is a decision). */
export const deciderOption = Options.text("by").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription("Who decides (required; recorded in the approval file and the state store).")
)

export const whoIs = (by: Option.Option<string>) =>
  Option.getOrElse(by, () => {
    try {
      return userInfo().username
    } catch {
      return "unknown"
    }
  })

/** The account the store scopes batches by: the service's host plus its wallets' ids (asked of it). */
export const accountOf = (connection: ConnectionOptions) =>
  Effect.flatMap(resolveConnection(connection), (resolved) => Effect.provide(resolveAccount(resolved.baseUrl), clientLayer(resolved)))

/** The one batch of the account whose id starts with `id`. */
export const findBatch = (account: AccountId, id: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const prefix = id.trim().toLowerCase()
    if (prefix.length < 4) return yield* new UsageError({ reason: `batch id "${id}" is too short: give at least 4 characters` })
    const found = (yield* store.account(account).listBatches()).filter((b) => b.batchId.startsWith(prefix))
    if (found.length === 0) return yield* new UsageError({ reason: `no batch ${id} in this account's state store` })
    if (found.length > 1) return yield* new UsageError({ reason: `"${id}" matches ${found.length} batches: give more of the id` })
    return found[0]
  })
