/** The store as narrow services, each implemented once over the StoreDb a dialect provides. */
import { Layer } from "effect"
import { AccountRecords } from "./Account.ts"
import { Batches } from "./Batches.ts"
import { Claims } from "./Claims.ts"
import { MirrorStore } from "./Mirror.ts"
import { Rows } from "./Reads.ts"
import { Registers } from "./Registers.ts"
import { RetryLinks } from "./Retries.ts"
import { ConsoleUsers } from "./Users.ts"

/** Every service a store layer provides. */
export type StoreServices = Batches | Claims | Rows | MirrorStore | AccountRecords | Registers | RetryLinks | ConsoleUsers

/** The narrow services over the StoreDb of the dialect's layer. */
export const layer = Layer.mergeAll(
  Batches.Default,
  Claims.Default,
  Rows.Default,
  MirrorStore.Default,
  AccountRecords.Default,
  Registers.Default,
  RetryLinks.Default,
  ConsoleUsers.Default
)
