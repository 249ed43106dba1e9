/**
 * Every operation of the state store (DESIGN 7), flat and scoped by account and batch ids: the
 * contract the narrow services of Sql/ implement once for both dialects, and the contract suite in
 * test/store checks on each.
 */
import type { AccountDriver } from "./Driver/Account.ts"
import type { BatchesDriver } from "./Driver/Batches.ts"
import type { ClaimsDriver } from "./Driver/Claims.ts"
import type { MirrorDriver } from "./Driver/Mirror.ts"
import type { RegistersDriver } from "./Driver/Registers.ts"
import type { RetriesDriver } from "./Driver/Retries.ts"
import type { RowsDriver } from "./Driver/Rows.ts"

/** Each narrow service's part (Driver/) in one type: callers and the tests' handles name any operation by it. */
export interface StoreDriver
  extends BatchesDriver, ClaimsDriver, RowsDriver, MirrorDriver, RegistersDriver, RetriesDriver, AccountDriver {}
