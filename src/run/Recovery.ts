/** What a run takes over from earlier runs of its batch before it sends anything. */
import { Effect, Option, Ref, Stream } from "effect"
import { IN_DOUBT_STATES } from "../store/RowState.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { isDeadLocalOwner } from "./Lease.ts"
import { RunEvent, tell } from "./Notices.ts"
import { RunContext } from "./RunContext.ts"

/** Alarms kept by earlier runs, and rows whose intents belong to a runner proven dead (rule 5). */
export const loadAlarms = Effect.fn("Recovery.loadAlarms")(function* () {
    const ctx = yield* RunContext
    const [mirror, reads] = yield* Effect.all([MirrorStore, Rows])
    const { accountId, batchId } = ctx
    const flagged = yield* mirror.flaggedRows(accountId, batchId)
    const alarms = new Map(flagged.filter((r) => r.alarm !== null).map((r) => [r.idx, { reason: r.alarm ?? "", references: r.candidates ?? [] }]))
    yield* Ref.set(ctx.alarms, alarms)
    const account = yield* mirror.accountAlarm(accountId)
    if (Option.isSome(account)) {
      yield* Ref.set(ctx.accountAlarm, account.value.reason)
      yield* tell(RunEvent.AccountAlarmInForce({ since: account.value.at, reason: account.value.reason }))
    }
    if (alarms.size > 0) yield* tell(RunEvent.RowsUnderAlarm({ count: alarms.size }))
    const owners = new Set<string>()
    yield* reads.streamRowsInStates(accountId, batchId, IN_DOUBT_STATES).pipe(
      Stream.runForEach((r) => Effect.sync(() => r.intentOwner !== null && r.intentOwner !== ctx.owner && owners.add(r.intentOwner)))
    )
    for (const previous of owners) {
      if (isDeadLocalOwner(previous)) yield* mirror.adoptIntents(accountId, batchId, previous, ctx.owner)
      else yield* tell(RunEvent.ForeignIntents({ runner: previous }))
    }
  })
