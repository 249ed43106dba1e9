/** The store's operations over one Db, whichever the dialect. */
import type { StoreDriver } from "../StoreDriver.ts"
import { makeAccount } from "./Account.ts"
import { makeBatches } from "./Batches.ts"
import { makeClaims } from "./Claims.ts"
import type { Db } from "./Db.ts"
import { makeMirror } from "./Mirror.ts"
import { makeReads } from "./Reads.ts"
import { makeRegisters } from "./Registers.ts"
import { makeRetries } from "./Retries.ts"

export const makeDriver = (db: Db): StoreDriver => ({
  ...makeBatches(db),
  ...makeClaims(db),
  ...makeReads(db),
  ...makeMirror(db),
  ...makeAccount(db),
  ...makeRegisters(db),
  ...makeRetries(db)
})
