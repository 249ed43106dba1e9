/** The account a run belongs to, asked of the service: its host plus its wallets' ids (DESIGN 7). */
import { Effect } from "effect"
import { PaymentClient } from "./Client.ts"
import { serviceAccountId } from "./ClientConfig.ts"

export const resolveAccount = (baseUrl: string) =>
  Effect.gen(function* () {
    const client = yield* PaymentClient
    const wallets = yield* client.wallets()
    return serviceAccountId(baseUrl, wallets.map((w) => w.id))
  }).pipe(Effect.withSpan("resolveAccount"))
