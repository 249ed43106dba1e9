/**
 * `--rate` as the account's budget (DESIGN 12): on a PostgreSQL store, every worker's request gate
 * reserves its slots in one register of the account, so N workers together stay under the rate and a
 * 429 seen by one pauses them all. A SQLite store is one machine's: its gate paces the process alone.
 */
import { Effect } from "effect"
import { RequestGate, type SharedGate } from "../api/RequestGate.ts"
import type { AccountId } from "../domain/Ids.ts"
import { type AccountStore, StateStore } from "../store/StateStore.ts"
import { isPostgresUrl } from "./StoreOpen.ts"

export const REQUEST_GATE_REGISTER = "request-gate"

/** The account's gate register as the request gate sees it. */
export const sharedGateOf = (account: AccountStore): SharedGate => ({
  modify: (change) => account.modifyRegister(REQUEST_GATE_REGISTER, change)
})

export const shareRequestBudget = (accountId: AccountId, storeLocation: string) =>
  Effect.gen(function* () {
    if (!isPostgresUrl(storeLocation)) return
    const gate = yield* RequestGate
    const store = yield* StateStore
    yield* gate.share(sharedGateOf(store.account(accountId)))
  })
