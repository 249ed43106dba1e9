/**
 * What the safeguards leave at a run's end: the batch paused in the store when rows are still held,
 * and the summary's `paused`, `halted` and `stuck` fields. Apart from Safeguards.ts, which runs during the run.
 */
import { Clock, DateTime, Effect, Option, Stream } from "effect"
import { OPEN_STATES } from "../store/RowState.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { RunEvent, tell } from "./Notices.ts"
import { RunContext } from "./RunContext.ts"
import { describeHalt, Safeguards } from "./Safeguards.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export interface StuckRow {
  readonly line: number
  readonly id: string | null
  readonly operator: string
  readonly status: string
  readonly reference: string | null
  readonly since: string
}

/** Sent rows with no final status for longer than `afterMs`: listed in the summary and the report. */
export const stuckRows = (accountId: AccountId, batchId: BatchId, afterMs: number) =>
  Effect.gen(function* () {
    const reads = yield* Rows
    const now = yield* Clock.currentTimeMillis
    return yield* reads.streamRowsInStates(accountId, batchId, OPEN_STATES).pipe(
      Stream.filterMap((row) => {
        const since = row.submittedAt ?? row.intentAt
        if (since === null || now - DateTime.toEpochMillis(since) < afterMs) return Option.none()
        return Option.some<StuckRow>({
          line: row.line,
          id: row.rowId,
          operator: row.operator,
          status: row.state,
          reference: row.reference,
          since: DateTime.formatIso(since)
        })
      }),
      Stream.runCollect,
      Effect.map((chunk) => [...chunk])
    )
  })

/**
 * At the end of a run: when rows are still held by a safeguard, the batch is paused in the store with
 * the reason (it stays so until `payouts resume`); returns the summary's fields. Rows held by an
 * account halt are not a pause of the batch: they stay `validated`, and the first run after the halt
 * is lifted pays them.
 */
export const concludeSafeguards = (counts: Readonly<Record<string, number>>, persist: boolean) =>
  Effect.gen(function* () {
    const ctx = yield* RunContext
    const safeguards = yield* Safeguards
    const waiting = counts["validated"] ?? 0
    const ownPause = waiting > 0 ? yield* safeguards.reason : undefined
    if (persist && ownPause !== undefined) {
      yield* Effect.flatMap(Batches, (batches) => batches.setBatchState(ctx.accountId, ctx.batchId, "paused", ownPause))
      yield* tell(RunEvent.PausedEnd({ batchId: ctx.batchId, reason: ownPause, waiting }))
    }
    const halt = waiting > 0 ? Option.getOrUndefined(yield* safeguards.halt) : undefined
    if (persist && halt !== undefined) {
      yield* tell(RunEvent.HaltedEnd({ halt, waiting }))
    }
    const paused = ownPause ?? (halt === undefined ? undefined : describeHalt(halt))
    const halted = halt === undefined ? {} : { halted: { by: halt.by, at: new Date(halt.at).toISOString(), reason: halt.reason } }
    const stuck = yield* stuckRows(ctx.accountId, ctx.batchId, safeguards.settings.stuckAfterMs)
    return { paused, extra: { ...(paused === undefined ? {} : { paused }), ...halted, stuck } }
  })
