/** The contract of Sql/Registers.ts: an account's small shared values, changed atomically. */
import type { Effect, Option } from "effect"
import type { StoreError } from "../Model.ts"
import type { AccountId } from "../../domain/Ids.ts"

export interface Register {
  readonly name: string
  readonly value: string
  readonly updatedAt: number
}

export interface RegisterRead {
  readonly nowMs: number
  readonly registers: ReadonlyArray<Register>
}

export interface RegistersDriver {
  /**
   * An account's small shared values (the request budget, currency locks, worker heartbeats), changed
   * atomically across every process sharing the store: `change` gets the value (none when absent) and
   * the store's clock (epoch ms; the database's on PostgreSQL) and returns its answer and the new value
   * (none deletes). `change` must be pure: a retried transaction runs it again.
   */
  readonly modifyRegister: <A>(
    accountId: AccountId,
    name: string,
    change: (value: Option.Option<string>, nowMs: number) => readonly [A, Option.Option<string>]
  ) => Effect.Effect<A, StoreError>
  /** The account's registers whose name starts with `prefix`, with the store's clock when read. */
  readonly registers: (accountId: AccountId, prefix: string) => Effect.Effect<RegisterRead, StoreError>
}
