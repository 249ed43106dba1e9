/**
 * Reconciliation of rows whose POST outcome is unknown (DESIGN.md section 7): ONE listing scan for
 * all of them, matched by the `[token]` at the start of the description plus amount and currency.
 * The decision itself is the pure `plan`; this module does the I/O around it.
 */
import { Chunk, Clock, DateTime, Effect, Option, Ref, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { fromWire } from "../domain/Money.ts"
import type { Row } from "../store/Model.ts"
import { StateStore } from "../store/StateStore.ts"
import { HISTORY_MS, type ListedPayout, plan, scanFromDate } from "./ReconcilePlan.ts"
import type { RunContext } from "./RunContext.ts"
import { stateOfStatus } from "./Submitter.ts"

export interface ReconcileRound {
  /** Rows still unknown and waiting for the listing to catch up. */
  readonly waiting: number
  readonly adopted: number
  readonly resent: number
  readonly alarms: number
}

export const makeReconciler = (ctx: RunContext, resend: (rows: ReadonlyArray<Row>) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const client = yield* PaymentClient
    const { accountId, batchId, writer } = ctx
    const emptyScans = new Map<number, number>()

    const scan = (fromDate: string) =>
      client.transactionStream({ type: "payout", from_date: fromDate, limit: 100 }).pipe(
        Stream.map(
          (t): ListedPayout => ({
            reference: t.reference,
            description: t.description,
            amount: t.amount,
            currency: t.currency,
            status: t.status,
            fee: t.fee
          })
        ),
        Stream.runCollect,
        Effect.map(Chunk.toReadonlyArray)
      )

    const round: Effect.Effect<ReconcileRound> = Effect.gen(function* () {
      yield* writer.flush
      const now = yield* Clock.currentTimeMillis
      const alarms = yield* Ref.get(ctx.alarms)
      const rows = (yield* store.streamRowsInStates(accountId, batchId, ["unknown"]).pipe(Stream.runCollect, Effect.orDie))
        .pipe(Chunk.toReadonlyArray)
        .filter((r) => !alarms.has(r.idx))
      if (rows.length === 0) return { waiting: 0, adopted: 0, resent: 0, alarms: alarms.size }
      const earliest = Math.min(...rows.map((r) => (r.intentAt === null ? now : DateTime.toEpochMillis(r.intentAt))))
      const listing = yield* scan(scanFromDate(earliest)).pipe(Effect.option)
      if (Option.isNone(listing)) return { waiting: rows.length, adopted: 0, resent: 0, alarms: alarms.size }
      const decisions = plan(
        rows.map((r) => ({
          idx: r.idx,
          token: r.token,
          amountMinor: r.amountMinor ?? 0,
          currency: r.currency,
          intentAt: r.intentAt === null ? now : DateTime.toEpochMillis(r.intentAt),
          unknownAt: DateTime.toEpochMillis(r.updatedAt),
          emptyScans: emptyScans.get(r.idx) ?? 0
        })),
        listing.value,
        ctx.recent,
        { now, graceMs: ctx.settings.reconcileGraceMs, historyMs: HISTORY_MS }
      )
      const byIdx = new Map(rows.map((r) => [r.idx, r]))
      const toResend: Array<number> = []
      let adopted = 0
      let waiting = 0
      for (const d of decisions) {
        switch (d._tag) {
          case "Adopt": {
            adopted++
            const state = stateOfStatus(d.payout.status)
            yield* writer.record({
              idx: d.idx,
              from: ["unknown"],
              to: state,
              reference: d.payout.reference,
              ...(d.payout.fee === undefined ? {} : { feeMinor: fromWire(d.payout.fee, d.payout.currency) }),
              source: "reconcile",
              detail: "found in the payout listing by its token"
            })
            if (["submitted", "pending", "processing"].includes(state)) {
              ctx.polls.push({ idx: d.idx, reference: d.payout.reference, dueAt: now, interval: ctx.settings.pollIntervalMs, since: now })
            }
            break
          }
          case "Alarm":
            yield* Ref.update(ctx.alarms, (m) => new Map([...m, [d.idx, d.references]]))
            yield* Effect.logWarning(`row on line ${byIdx.get(d.idx)?.line}: ${d.references.length} payouts carry its token (${d.references.join(", ")}); it will never be resent`)
            break
          case "Expired":
            yield* Ref.update(ctx.alarms, (m) => new Map([...m, [d.idx, []]]))
            break
          case "Resend":
            toResend.push(d.idx)
            break
          case "Wait":
            waiting++
            emptyScans.set(d.idx, (emptyScans.get(d.idx) ?? 0) + 1)
            break
        }
      }
      if (toResend.length > 0) {
        yield* writer.flush
        const claimed = yield* store.claimForResend(accountId, batchId, toResend).pipe(Effect.orDie)
        for (const r of claimed) emptyScans.delete(r.idx)
        yield* resend(claimed)
      }
      return { waiting, adopted, resent: toResend.length, alarms: (yield* Ref.get(ctx.alarms)).size }
    })

    return { round } as const
  })
