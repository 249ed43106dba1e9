/**
 * Keeping the batch's lease while the run goes on (DESIGN 7, fencing): renewed every third of its
 * TTL on a Schedule. The lease is ours until the start of its last successful renewal + TTL (local
 * clock): a runner that cannot renew lets it lapse and stops sending (`leaseValid`); one that finds
 * it taken over stops at once.
 */
import { Clock, Duration, Effect, Ref, Schedule } from "effect"
import { Batches } from "../store/Sql/Batches.ts"
import { RunContext } from "./RunContext.ts"

export const keepLease = (ttl: Duration.Duration, acquiredAt: number) =>
  Effect.gen(function* () {
    const ctx = yield* RunContext
    const batches = yield* Batches
    yield* Ref.set(ctx.leaseUntil, acquiredAt + Duration.toMillis(ttl))
    const renew = Effect.gen(function* () {
      const start = yield* Clock.currentTimeMillis
      const ok = yield* batches.renewLease(ctx.accountId, ctx.batchId, ctx.fence, ttl)
      if (ok) yield* Ref.set(ctx.leaseUntil, start + Duration.toMillis(ttl))
      else yield* Ref.set(ctx.stop, { _tag: "LeaseLost" })
    }).pipe(Effect.ignore, Effect.withSpan("Lease.renew"))
    yield* renew.pipe(
      Effect.delay(Duration.millis(Math.max(50, Duration.toMillis(ttl) / 3))),
      Effect.repeat(Schedule.spaced(Duration.millis(Math.max(50, Duration.toMillis(ttl) / 3)))),
      Effect.forkScoped
    )
  })
