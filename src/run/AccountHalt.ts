/**
 * Halting and lifting the account (DESIGN 11): the one implementation `payouts halt` and the console's
 * Account page both run. The halt and its lift are kept in the store with who, when and why; runners
 * and workers check it before every POST (HaltWatch.ts).
 */
import { Clock, Effect, type Option } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import type { Halt } from "../store/AccountModel.ts"
import { AccountRecords } from "../store/Sql/Account.ts"

export interface HaltOutcome {
  /** False when a halt was already in force: it is kept as it was. */
  readonly changed: boolean
  readonly halt: Option.Option<Halt>
}

/** Halts the account by `by` for `reason`, unless a halt already holds. */
export const haltAccount = Effect.fn("AccountHalt.halt")(function* (accountId: AccountId, by: string, reason: string) {
  const records = yield* AccountRecords
  const changed = yield* records.haltAccount(accountId, { at: yield* Clock.currentTimeMillis, by, reason })
  return { changed, halt: yield* records.activeHalt(accountId) } satisfies HaltOutcome
})

/** Lifts the halt in force, recording who (and why, when given); `changed` is false when none held. */
export const liftHalt = Effect.fn("AccountHalt.lift")(function* (accountId: AccountId, by: string, reason?: string) {
  const records = yield* AccountRecords
  const lifted = yield* records.liftHalt(accountId, by, yield* Clock.currentTimeMillis, reason)
  return { changed: lifted > 0, halt: yield* records.activeHalt(accountId) } satisfies HaltOutcome
})
