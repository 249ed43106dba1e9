/**
 * The batch lease, with one recovery: a lease held by a runner that died on this host (killed,
 * crashed) is taken over at once instead of blocking the batch until it expires. Owners are
 * `host:boot:pid:role`; a pid of this boot that no longer exists cannot be running anything.
 */
import { type Duration, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import type { Fence } from "../store/Model.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but is not ours to signal.
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

/** The kernel's boot id (Linux), shortened; pids are only comparable within one boot. */
const bootId = (() => {
  let id: string | undefined
  return (): string => {
    if (id === undefined) {
      try {
        id = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").replace(/[^0-9a-f]/g, "").slice(0, 8)
      } catch {
        id = ""
      }
      if (!/^[0-9a-f]{8}$/.test(id)) id = "00000000"
    }
    return id
  }
})()

/** A lease owner name unique to this process: `host:boot:pid:role` (role: a nonce by default). */
export const runnerName = (role: string = randomUUID().slice(0, 8)): string =>
  `${hostname()}:${bootId()}:${process.pid}:${role}`

/**
 * True when `owner` is proven dead (DESIGN 7, rule 5): same host and boot id, process gone. An owner
 * of another boot is not: a host name alone does not prove which machine it was.
 */
export const isDeadLocalOwner = (owner: string, host = hostname()): boolean => {
  const parts = owner.split(":")
  if (parts.length < 4) return false
  const pid = Number(parts[parts.length - 2])
  const boot = parts[parts.length - 3]
  return parts.slice(0, -3).join(":") === host && boot === bootId() && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)
}

/** The lease's fence when this owner now holds it; none while another (live) runner does. */
export const acquireLease = Effect.fn("Lease.acquire")(function* (accountId: AccountId, batchId: BatchId, owner: string, ttl: Duration.DurationInput) {
    const batches = yield* Batches
    const held = yield* batches.acquireLease(accountId, batchId, owner, ttl)
    if (Option.isSome(held)) return held
    const holder = Option.flatMap(yield* batches.getBatch(accountId, batchId), (b) => Option.fromNullable(b.leaseOwner))
    if (Option.isNone(holder) || !isDeadLocalOwner(holder.value)) return Option.none<Fence>()
    // Released only if still held by the dead owner: two restarts racing here still get one lease.
    yield* batches.releaseLease(accountId, batchId, holder.value)
    return yield* batches.acquireLease(accountId, batchId, owner, ttl)
  })

/**
 * The lease for the enclosing scope: taken and its release registered in one uninterruptible step,
 * so a Ctrl-C that lands just after the store granted it cannot leave it held until it expires.
 * Leaving gives up the lease and this owner's intents (every POST of ours has ended: rule 5).
 */
export const holdLease = (accountId: AccountId, batchId: BatchId, owner: string, ttl: Duration.DurationInput) =>
  Effect.acquireRelease(acquireLease(accountId, batchId, owner, ttl), (held) =>
    Option.isNone(held)
      ? Effect.void
      : Effect.flatMap(Effect.all([MirrorStore, Batches]), ([mirror, batches]) =>
          Effect.zipRight(mirror.releaseIntents(accountId, batchId, owner), batches.releaseLease(accountId, batchId, owner)).pipe(Effect.ignore)
        ))
