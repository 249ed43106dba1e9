import { Effect, Exit, Layer, Scope } from "effect"
import { join } from "node:path"
import { AccountId, BatchId, MinorUnits } from "../../src/domain/Ids.ts"
import { mintToken } from "../../src/domain/Token.ts"
import type { RowInput } from "../../src/store/Model.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { POSTGRES_ADAPTERS } from "./postgres.ts"
import { type StateStoreShape, handlesOf } from "../kit/Store.ts"
import type { StoreError } from "../../src/store/Model.ts"
import { scopedTempDir } from "../kit/TempDir.ts"

export const ACCOUNT = AccountId.make("acct-sandbox")
export const OTHER_ACCOUNT = AccountId.make("acct-live")

export const tempDbPath = Effect.map(scopedTempDir("payouts-store-"), (dir) => join(dir, "state", "payouts.db"))

/** Opens a store on `filename` in a scope of its own, so a test can close it mid-way (a crash). */
export const openStore = (filename: string, options: Partial<SqliteStateStore.SqliteOptions> = {}) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      SqliteStateStore.layer({ filename, busyTimeout: "20 millis", ...options }),
      scope
    )
    return { store: handlesOf(context), close: Scope.close(scope, Exit.void) }
  })

/** A store on a temp file, closed with the test's scope. */
export const scopedStore = Effect.gen(function* () {
  const filename = yield* tempDbPath
  const { close, store } = yield* openStore(filename)
  yield* Effect.addFinalizer(() => close)
  return { store, filename }
})

/** A row as intake hands it to the store: the token minted as intake mints it for a row with an id. */
export const rowInput = (idx: number, over: Partial<RowInput> = {}): RowInput => ({
  idx,
  token: mintToken(ACCOUNT, { _tag: "Id", id: `id-${idx}`, generation: 0 }),
  line: idx + 2,
  rowId: `id-${idx}`,
  repeatKey: `+237670000${String(idx).padStart(3, "0")}|5000|MTN_MOMO_CMR`,
  operator: "MTN_MOMO_CMR",
  currency: "XAF",
  amountMinor: MinorUnits.make(5000),
  phone: `+237670000${String(idx).padStart(3, "0")}`,
  name: `Seller ${idx}`,
  email: `seller${idx}@example.com`,
  description: `Payout id-${idx}`,
  details: { shop: `shop-${idx}` },
  ...over
})

export const rowInputs = (count: number, over: Partial<RowInput> = {}): ReadonlyArray<RowInput> =>
  Array.from({ length: count }, (_, idx) => rowInput(idx, over))

export const newBatch = (batchId: string, accountId: AccountId = ACCOUNT) => ({
  accountId,
  batchId: BatchId.make(batchId),
  fileName: `${batchId}.csv`,
  options: { concurrency: 8 }
})

/**
 * A state store adapter as the contract suite sees it: a fresh location (a file, a schema) and a
 * store opened on it. The store tests that are not about SQLite itself run once per adapter.
 */
export interface StoreAdapter {
  readonly name: string
  readonly location: Effect.Effect<string, never, Scope.Scope>
  readonly open: (location: string) => Effect.Effect<{ readonly store: StateStoreShape; readonly close: Effect.Effect<void> }, StoreError>
}

export const SQLITE: StoreAdapter = { name: "SQLite", location: tempDbPath, open: (location) => openStore(location) }

/** Every adapter the contract suite runs against; a second adapter (PostgreSQL) joins here. */
export const ADAPTERS: ReadonlyArray<StoreAdapter> = [SQLITE, ...POSTGRES_ADAPTERS]

/** A store of `adapter` on a fresh location, closed with the test's scope. */
export const scopedStoreOn = (adapter: StoreAdapter) =>
  Effect.gen(function* () {
    const location = yield* adapter.location
    const { close, store } = yield* adapter.open(location)
    yield* Effect.addFinalizer(() => close)
    return { store, location }
  })
