/**
 * An answer of the service's that no payout of ours can have (api/Plausible.ts): the row is put under
 * alarm with what was answered, so a person decides (exit 5), and nothing of that answer is stored.
 */
import { Effect, Option, Ref } from "effect"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { RunEvent, tell } from "./Notices.ts"
import type { RunContextShape } from "./RunContext.ts"

type Ctx = Pick<RunContextShape, "accountId" | "batchId" | "alarms">

/** Raises an anomaly alarm on a row of `ctx`'s batch; its store services are taken once, when a run's part is built. */
export const makeRaiseAnomaly = Effect.map(Effect.all([MirrorStore, Rows]), ([mirror, reads]) =>
  Effect.fn("Run.anomaly")(function* (ctx: Ctx, idx: number, reason: string, references: ReadonlyArray<string>) {
    const text = `anomaly: ${reason}`
    yield* mirror.setRowAlarm(ctx.accountId, ctx.batchId, idx, text, references).pipe(Effect.orDie)
    yield* Ref.update(ctx.alarms, (m) => new Map([...m, [idx, { reason: text, references }]]))
    const line = Option.match(yield* reads.getRow(ctx.accountId, ctx.batchId, idx).pipe(Effect.orDie), { onNone: () => idx, onSome: (r) => r.line })
    yield* tell(RunEvent.AnomalyAlarm({ batchId: ctx.batchId, line, reason: text }))
  })
)

/** Whether the row is under alarm in this run: a person decides it, no answer moves it meanwhile. */
export const underAlarm = (ctx: Pick<RunContextShape, "alarms">, idx: number) => Effect.map(Ref.get(ctx.alarms), (m) => m.has(idx))
