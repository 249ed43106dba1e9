/** The account a run belongs to, asked of the service: its host plus its wallets' ids (DESIGN 7). */
import { Effect } from "effect"
import { PaymentClient } from "./Client.ts"
import { serviceAccountId, walletScope } from "./ClientConfig.ts"

export const resolveAccount = (baseUrl: string) => Effect.map(resolveAccountScope(baseUrl), (a) => a.accountId)

/**
 * The account id (host + wallet ids: the store's scope) and the token scope (wallet ids only: the same
 * merchant account reached through a proxy or another address mints the same tokens, so the pre-scan
 * still recognises what it paid).
 */
export const resolveAccountScope = (baseUrl: string) =>
  Effect.gen(function* () {
    const client = yield* PaymentClient
    const ids = (yield* client.wallets()).map((w) => w.id)
    return { accountId: serviceAccountId(baseUrl, ids), tokenScope: walletScope(ids) }
  }).pipe(Effect.withSpan("resolveAccount"))
