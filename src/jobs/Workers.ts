/**
 * Several `watch` workers sharing one folder and one store (DESIGN 12), coordinated through the
 * account's registers: each worker's heartbeat (`payouts workers` lists them), and one lock per
 * currency, so one batch per currency wallet runs at a time across every worker (the balance
 * preflight of one batch is not spent by another's payouts). A lock's holder renews it; a lock whose
 * holder stopped renewing expires, and one held by a process proven dead on this host is taken at once.
 */
import { Effect, Option, Schema } from "effect"
import { hostname } from "node:os"
import type { AccountId } from "../domain/Ids.ts"
import { isDeadLocalOwner } from "../run/Lease.ts"
import { holdLocks } from "../store/RegisterLock.ts"
import { Registers } from "../store/Sql/Registers.ts"

export const WORKER_PREFIX = "worker:"
const LOCK_PREFIX = "currency-lock:"

export const Heartbeat = Schema.Struct({
  owner: Schema.String,
  host: Schema.String,
  pid: Schema.Number,
  startedAt: Schema.Number,
  /** The store's clock at the last beat. */
  beatAt: Schema.Number,
  /** Lost when no beat came for this long. */
  ttlMs: Schema.Number,
  /** Files this worker is running now. */
  running: Schema.Array(Schema.String)
})
export type Heartbeat = typeof Heartbeat.Type
const HeartbeatJson = Schema.parseJson(Heartbeat)
const encodeBeat = Schema.encodeSync(HeartbeatJson)
export const decodeBeat = Schema.decodeUnknownOption(HeartbeatJson)

/** Records this worker's heartbeat (and what it runs) in the store. */
export const beat = (accountId: AccountId, owner: string, startedAt: number, ttlMs: number, running: ReadonlyArray<string>) =>
  Effect.flatMap(Registers, (registers) =>
    registers.modifyRegister(accountId, `${WORKER_PREFIX}${owner}`, (_, nowMs) => [
      undefined,
      Option.some(encodeBeat({ owner, host: hostname(), pid: process.pid, startedAt, beatAt: nowMs, ttlMs, running: [...running] }))
    ])
  )

/** A worker leaving cleanly takes its heartbeat with it. */
export const leave = (accountId: AccountId, owner: string) =>
  Effect.flatMap(Registers, (registers) => registers.modifyRegister(accountId, `${WORKER_PREFIX}${owner}`, () => [undefined, Option.none()]))

/** host:boot:pid of an owner name host:boot:pid:role: a worker and the runners it started share it. */
export const processOf = (owner: string) => owner.split(":").slice(0, -1).join(":")

/** Whether a lease's owner is a runner of this worker's process. */
export const heldBy = (worker: string, leaseOwner: string | null) => leaseOwner !== null && processOf(leaseOwner) === processOf(worker)

export interface WorkerView extends Heartbeat {
  /** Milliseconds since the last beat, by the store's clock. */
  readonly silentMs: number
  readonly live: boolean
}

/** Every worker that beat in this account's store, live first. */
export const workers = (accountId: AccountId) =>
  Effect.gen(function* () {
    const read = yield* (yield* Registers).registers(accountId, WORKER_PREFIX)
    const views: Array<WorkerView> = []
    for (const register of read.registers) {
      const found = decodeBeat(register.value)
      if (Option.isNone(found)) continue
      const silentMs = Math.max(0, read.nowMs - found.value.beatAt)
      views.push({ ...found.value, silentMs, live: silentMs <= found.value.ttlMs })
    }
    return views.sort((a, b) => Number(b.live) - Number(a.live) || a.owner.localeCompare(b.owner))
  })

/**
 * Holds the store's lock of every currency for the scope; false, holding none, when another worker
 * holds one of them. A lock of a process proven dead on this host is taken at once.
 */
export const holdCurrencies = (accountId: AccountId, currencies: ReadonlyArray<string>, owner: string, ttlMs: number) =>
  holdLocks(accountId, currencies.map((c) => `${LOCK_PREFIX}${c}`), { owner, ttlMs, isDead: isDeadLocalOwner })
