/**
 * The store as narrow services, each implemented once over the StoreDb a dialect provides, and the
 * StateStore port over all of them for callers that need many (the run, the jobs).
 */
import { Effect, Layer } from "effect"
import { fromDriver, StateStore } from "../StateStore.ts"
import { AccountRecords } from "./Account.ts"
import { Batches } from "./Batches.ts"
import { Claims } from "./Claims.ts"
import { MirrorStore } from "./Mirror.ts"
import { Rows } from "./Reads.ts"
import { Registers } from "./Registers.ts"
import { RetryLinks } from "./Retries.ts"
import { ConsoleUsers } from "./Users.ts"

export { AccountRecords, Batches, Claims, ConsoleUsers, MirrorStore, Registers, RetryLinks, Rows }

/** Every service a store layer provides. */
export type StoreServices = StateStore | Batches | Claims | Rows | MirrorStore | AccountRecords | Registers | RetryLinks | ConsoleUsers

const narrow = Layer.mergeAll(
  Batches.Default,
  Claims.Default,
  Rows.Default,
  MirrorStore.Default,
  AccountRecords.Default,
  Registers.Default,
  RetryLinks.Default,
  ConsoleUsers.Default
)

const port = Layer.effect(
  StateStore,
  Effect.gen(function* () {
    const [batches, claims, rows, mirror, account, registers, retries] = yield* Effect.all([
      Batches, Claims, Rows, MirrorStore, AccountRecords, Registers, RetryLinks
    ])
    return StateStore.of(fromDriver({ ...batches, ...claims, ...rows, ...mirror, ...account, ...registers, ...retries }))
  })
)

/** The narrow services and the port, over the StoreDb of the dialect's layer. */
export const layer = Layer.provideMerge(port, narrow)
