/**
 * A lock kept in an account's register (DESIGN 12): held by one owner across every process sharing
 * the store, until released or until its holder stops renewing it for `ttlMs` (a process that died
 * or stalled). `isDead` lets a caller that can prove an owner dead take its lock at once.
 */
import { Effect, Option, Schedule, Schema } from "effect"
import type { AccountId } from "../domain/Ids.ts"
import { Registers } from "./Sql/Registers.ts"

const Lock = Schema.parseJson(Schema.Struct({ owner: Schema.String, expiresAt: Schema.Number }))
const encodeLock = Schema.encodeSync(Lock)
const decodeLock = Schema.decodeUnknownOption(Lock)

export interface LockOptions {
  readonly owner: string
  readonly ttlMs: number
  readonly isDead?: (owner: string) => boolean
}

/** Takes (or renews) the lock; false while another live owner holds it. */
export const takeLock = (accountId: AccountId, name: string, o: LockOptions) =>
  Effect.flatMap(Registers, (registers) => registers.modifyRegister(accountId, name, (value, nowMs) => {
    const held = Option.flatMap(value, decodeLock)
    const free =
      Option.isNone(held) || held.value.owner === o.owner || held.value.expiresAt <= nowMs || (o.isDead?.(held.value.owner) ?? false)
    return free ? ([true, Option.some(encodeLock({ owner: o.owner, expiresAt: nowMs + o.ttlMs }))] as const) : ([false, value] as const)
  }))

/** Releases the lock if `owner` still holds it. */
export const dropLock = (accountId: AccountId, name: string, owner: string) =>
  Effect.flatMap(Registers, (registers) => registers.modifyRegister(accountId, name, (value) => {
    const held = Option.flatMap(value, decodeLock)
    return Option.isSome(held) && held.value.owner === owner ? ([undefined, Option.none()] as const) : ([undefined, value] as const)
  }))

const renewEvery = (ttlMs: number) => Math.max(100, Math.floor(ttlMs / 3))

/**
 * Holds every lock of `names` (taken in sorted order: no two holders wait on each other) for the
 * scope, renewed a third of `ttlMs` apart; false, holding none, when another owner holds one.
 */
export const holdLocks = (accountId: AccountId, names: ReadonlyArray<string>, o: LockOptions) =>
  Effect.gen(function* () {
    const taken: Array<string> = []
    const dropAll = Effect.forEach(taken, (name) => dropLock(accountId, name, o.owner), { discard: true })
    for (const name of [...new Set(names)].sort()) {
      if (!(yield* takeLock(accountId, name, o))) {
        yield* dropAll
        return false
      }
      taken.push(name)
    }
    yield* Effect.addFinalizer(() => Effect.ignore(dropAll))
    yield* Effect.forEach(taken, (name) => takeLock(accountId, name, o), { discard: true }).pipe(
      Effect.catchAll((e) => Effect.logWarning(`a lock in the state store could not be renewed: ${String(e)}`)),
      Effect.repeat(Schedule.spaced(renewEvery(o.ttlMs))),
      Effect.delay(renewEvery(o.ttlMs)),
      Effect.forkScoped
    )
    return true
  })

/** Runs `effect` holding the lock `name`, waiting for it as long as another owner holds it. */
export const withLock = <A, E, R>(accountId: AccountId, name: string, o: LockOptions, effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.zipRight(
      holdLocks(accountId, [name], o).pipe(
        Effect.repeat({ schedule: Schedule.spaced("200 millis"), until: (held) => held })
      ),
      effect
    )
  )
