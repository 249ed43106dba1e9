/**
 * `--notify`: rows just put under alarm are told at once, in one `batch.alarm` (outcome running, no
 * exit code), by the pass that raised them (the pre-scan, a reconciling round). Queued, never waited
 * for; a failure to gather the facts only skips it. The run's end tells batch.alarm again.
 */
import { Effect, Option, Ref } from "effect"
import { notify } from "../notify/Notifier.ts"
import { rowAlarmFacts } from "../notify/Payload.ts"
import { Batches } from "../store/Sql/Batches.ts"
import type { RunContextShape } from "./RunContext.ts"

export interface RaisedAlarm {
  readonly line: number
  readonly reason: string
}

export const tellRaisedAlarms = (ctx: Pick<RunContextShape, "accountId" | "batchId" | "alarms">, raised: ReadonlyArray<RaisedAlarm>) =>
  Effect.gen(function* () {
    if (raised.length === 0) return
    const { accountId, batchId, alarms } = ctx
    const batches = yield* Batches
    yield* Effect.all([batches.getBatch(accountId, batchId), batches.countByState(accountId, batchId), Ref.get(alarms)]).pipe(
      Effect.flatMap(([batch, counts, all]) =>
        notify(
          "batch.alarm",
          rowAlarmFacts({ batchId, file: Option.match(batch, { onNone: () => "", onSome: (b) => b.fileName }), counts, alarms: [...all.keys()], raised })
        )
      ),
      Effect.ignore
    )
  })
