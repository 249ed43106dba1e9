/**
 * `--rate` as the account's budget (DESIGN 12): on a PostgreSQL store, every worker's request gate
 * reserves its slots in one register of the account, so N workers together stay under the rate and a
 * 429 seen by one pauses them all. A SQLite store is one machine's: its gate paces the process alone.
 *
 * The account is known only after a first `GET /wallet`. So that this request (sent by every worker
 * that starts, and again while the service is away) is inside the budget too, the store remembers which
 * account a service address and key were last found to be, and a worker shares that account's budget
 * before it asks.
 */
import { createHash } from "node:crypto"
import { Effect, Layer, Option, Redacted } from "effect"
import { resolveAccountScope } from "../api/Account.ts"
import type { PaymentClient } from "../api/Client.ts"
import { RequestGate } from "../api/RequestGate.ts"
import type { SharedGate } from "../api/GateTunings.ts"
import { AccountId } from "../domain/Ids.ts"
import { Registers } from "../store/Sql/Registers.ts"
import type { Connection } from "./Settings.ts"
import { isPostgresUrl, openStore } from "./StoreOpen.ts"

export const REQUEST_GATE_REGISTER = "request-gate"

/** Registers not of one account: which account a service address and key lead to. */
const ACCOUNT_HINTS = AccountId.make("(account hints)")

/** The key enters only through a hash: the store never holds a secret. */
const hintName = (connection: Pick<Connection, "baseUrl" | "apiKey">) =>
  `account-of/${createHash("sha256").update(`${connection.baseUrl}\n${Redacted.value(connection.apiKey)}`).digest("hex").slice(0, 32)}`

/** The account's gate register as the request gate sees it. */
export const sharedGateOf = (registers: Registers, accountId: AccountId): SharedGate => ({
  modify: (change) => registers.modifyRegister(accountId, REQUEST_GATE_REGISTER, change)
})

export const shareRequestBudget = (accountId: AccountId, storeLocation: string) =>
  Effect.gen(function* () {
    if (!isPostgresUrl(storeLocation)) return
    const gate = yield* RequestGate
    yield* gate.share(sharedGateOf(yield* Registers, accountId))
  })

/** Before the account lookup: share the budget of the account this address and key led to last time. */
export const shareKnownAccountBudget = (connection: Pick<Connection, "baseUrl" | "apiKey">) =>
  Effect.gen(function* () {
    const registers = yield* Registers
    const name = hintName(connection)
    const known = (yield* registers.registers(ACCOUNT_HINTS, name)).registers.find((r) => r.name === name)
    if (known === undefined) return
    const gate = yield* RequestGate
    yield* gate.share(sharedGateOf(registers, AccountId.make(known.value)))
  }).pipe(Effect.ignore)

/** After the lookup: remember the account for the next worker's first request. */
export const rememberAccount = (connection: Pick<Connection, "baseUrl" | "apiKey">, accountId: AccountId) =>
  Effect.flatMap(Registers, (registers) =>
    registers.modifyRegister(ACCOUNT_HINTS, hintName(connection), (value) =>
      Option.contains(value, accountId) ? [undefined, value] as const : [undefined, Option.some<string>(accountId)] as const
    )).pipe(Effect.ignore)

/**
 * The account lookup inside the shared budget: on a PostgreSQL store the lookup's own gate draws from
 * the account this address and key led to before, and the account found is remembered for next time.
 */
export const lookupAccountScope = <E, R>(
  connection: Connection,
  client: Layer.Layer<PaymentClient | RequestGate, E, R>,
  storeLocation: string
) => {
  const alone = Effect.provide(resolveAccountScope(connection.baseUrl), client)
  if (!isPostgresUrl(storeLocation)) return alone
  const shared = shareKnownAccountBudget(connection).pipe(
    Effect.zipRight(resolveAccountScope(connection.baseUrl)),
    Effect.tap((scope) => rememberAccount(connection, scope.accountId))
  )
  // A store that cannot be opened is the run's to report (exit 4); the lookup alone goes on.
  return Effect.provide(shared, Layer.merge(client, openStore(storeLocation))).pipe(Effect.catchTag("StoreError", () => alone))
}
