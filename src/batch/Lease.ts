/**
 * The batch lease, with one recovery: a lease held by a runner that died on this host (killed,
 * crashed) is taken over at once instead of blocking the batch until it expires. Owners are
 * `host:pid:nonce`; a pid that no longer exists cannot be running anything.
 */
import { type Duration, Effect, Option } from "effect"
import { hostname } from "node:os"
import { StateStore } from "../store/StateStore.ts"

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** True when `owner` names a process of this host that no longer exists. */
export const isDeadLocalOwner = (owner: string, host = hostname()): boolean => {
  const parts = owner.split(":")
  if (parts.length < 3) return false
  const pid = Number(parts[parts.length - 2])
  return parts.slice(0, -2).join(":") === host && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)
}

export const acquireLease = (accountId: string, batchId: string, owner: string, ttl: Duration.DurationInput) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    if (yield* store.acquireLease(accountId, batchId, owner, ttl)) return true
    const holder = Option.flatMap(yield* store.getBatch(accountId, batchId), (b) => Option.fromNullable(b.leaseOwner))
    if (Option.isNone(holder) || !isDeadLocalOwner(holder.value)) return false
    // Released only if still held by the dead owner: two restarts racing here still get one lease.
    yield* store.releaseLease(accountId, batchId, holder.value)
    return yield* store.acquireLease(accountId, batchId, owner, ttl)
  })
