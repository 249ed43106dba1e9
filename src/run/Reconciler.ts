/**
 * Reconciliation of rows whose POST outcome is unknown (DESIGN 7): sync the listing mirror over the
 * days the rows need, gather the evidence (their tokens in the mirror, our known payouts as
 * witnesses, the listing lag, the service's clock), and apply the pure decision of ResendRules to
 * each row: adopt, alarm, resend (at most once, with its evidence recorded) or wait (saying why).
 */
import { Chunk, Clock, DateTime, Effect, Equal, HashMap, Option, Ref, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import type { Row } from "../store/Model.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { type RaisedAlarm, tellRaisedAlarms } from "./TellAlarms.ts"
import { DAY_MS, dayOf, daysBetween } from "./ListingDays.ts"
import { syncDays } from "./ListingMirror.ts"
import { decide, type Decision, graceFloor, LAG_CAP_MS, MAX_SKEW_MS, p99Lag, serviceDaysNeeded } from "./ResendRules.ts"
import { DEFAULT_LEASE_TTL_MS, DEFAULT_RECONCILE_DEADLINE_MS, DEFAULT_REQUEST_TIMEOUT_MS, RunContext } from "./RunContext.ts"
import { adoptListed } from "./Adopt.ts"
import { RunEvent, tell } from "./Notices.ts"
import { Submitter } from "./Submitter.ts"
import type { Tracker } from "./Tracker.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import type { WaitReason } from "./WaitReason.ts"

export interface ReconcileRound {
  /** Rows still unknown and waiting for evidence. */
  readonly waiting: number
  readonly adopted: number
  readonly resent: number
  readonly alarms: number
}

const LAG_WINDOW_MS = 7 * DAY_MS

const groupByToken = (payouts: ReadonlyArray<MirroredPayout>) => {
  const map = new Map<string, Array<MirroredPayout>>()
  for (const p of payouts) {
    if (p.token === null) continue
    const bucket = map.get(p.token)
    if (bucket === undefined) map.set(p.token, [p])
    else bucket.push(p)
  }
  return map
}

const make = Effect.gen(function* () {
  const ctx = yield* RunContext
  const [batches, mirror, reads] = yield* Effect.all([Batches, MirrorStore, Rows])
  const client = yield* PaymentClient
  const writer = yield* TransitionWriter
  const { claimResend, resend } = yield* Submitter
  const parts = yield* Effect.context<TransitionWriter | Tracker>()
  const { accountId, batchId, settings } = ctx
  // Per unknown row (as many as the batch's): the complete syncs that did not list it, the last wait said.
  const misses = yield* Ref.make(HashMap.empty<number, ReadonlyArray<number>>())
  const lastWait = yield* Ref.make(HashMap.empty<number, WaitReason>())
  const announcedGrace = yield* Ref.make(0)
  // Days whose listing claims more than can be read, said once per run (ListingMirror.ts); a few days.
  const told = yield* Ref.make<ReadonlySet<string>>(new Set())

  // Rows this round put under alarm, told together at its end (tellRaised).
  const raised = yield* Ref.make(Chunk.empty<RaisedAlarm>())
  const raiseRowAlarm = Effect.fn("Reconciler.alarm")(function* (row: Row, reason: string, references: ReadonlyArray<string>) {
      yield* mirror.setRowAlarm(accountId, batchId, row.idx, reason, references).pipe(Effect.orDie)
      yield* Ref.update(ctx.alarms, (m) => new Map([...m, [row.idx, { reason, references }]]))
      yield* tell(RunEvent.RowAlarmed({ batchId, line: row.line, reason, references }))
      yield* Ref.update(raised, Chunk.append<RaisedAlarm>({ line: row.line, reason }))
    })

  // --notify: the rows a round put under alarm are told at once, in one notification.
  const tellRaised = Effect.flatMap(Ref.getAndSet(raised, Chunk.empty()), (all) =>
    tellRaisedAlarms(ctx, Chunk.toReadonlyArray(all)).pipe(Effect.provideService(Batches, batches)))

  /** One pass over the unknown rows and the rows resent once: each adopted, alarmed, resent or left waiting. */
  const round = Effect.fn("Reconciler.round")(function* () {
    yield* writer.flush
    const now = yield* Clock.currentTimeMillis
    const alarms = yield* Ref.get(ctx.alarms)
    const unknown = Chunk.toReadonlyArray(
      yield* reads.streamRowsInStates(accountId, batchId, ["unknown"]).pipe(Stream.runCollect, Effect.orDie)
    ).filter((r) => !alarms.has(r.idx))
    // Rows resent once stay watched: a second payout carrying the token is a duplicate alarm.
    const watched = (yield* mirror.flaggedRows(accountId, batchId).pipe(Effect.orDie)).filter(
      (r) => r.resends > 0 && r.state !== "unknown" && !alarms.has(r.idx)
    )
    if (unknown.length === 0 && watched.length === 0) return { waiting: 0, adopted: 0, resent: 0, alarms: alarms.size } satisfies ReconcileRound

    const intentOf = (r: Row) => (r.intentAt === null ? now : DateTime.toEpochMillis(r.intentAt))
    const earliest = Math.min(...[...unknown, ...watched].map(intentOf))
    const requestTimeoutMs = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    const leaseTtlMs = settings.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
    // One read of our known payouts serves the lag (7 days) and the witnesses (from the intents' days).
    const witnessesFrom = earliest - DAY_MS
    const knownAll = yield* mirror.knownPayouts(accountId, Math.min(now - LAG_WINDOW_MS, witnessesFrom)).pipe(Effect.orDie)
    const lagKnown = knownAll.filter((k) => k.answeredAt >= now - LAG_WINDOW_MS)
    // The latest read of each day a payout not listed yet was answered on: its evidence of lag.
    const unlistedDays = [...new Set(lagKnown.filter((k) => k.listedAt === null).map((k) => dayOf(k.answeredAt)))]
    const dayReads = new Map((unlistedDays.length === 0 ? [] : yield* mirror.mirrorDays(accountId, unlistedDays).pipe(Effect.orDie)).map((d) => [d.day, d.readAt]))
    const lag = p99Lag(lagKnown, dayReads, LAG_CAP_MS)
    const floor = graceFloor(requestTimeoutMs, leaseTtlMs, lag)
    const graceMs = Math.max(settings.reconcileGraceMs, floor)
    if (graceMs > settings.reconcileGraceMs && graceMs > (yield* Ref.get(announcedGrace)) * 1.2) {
      yield* Ref.set(announcedGrace, graceMs)
      yield* tell(RunEvent.GraceRaised({ fromMs: settings.reconcileGraceMs, toMs: graceMs, lagMs: lag }))
    }
    // Days are the service's: with a skewed clock (rule 7 then forbids any resend) the tokens are
    // still looked for on the days the service would have written them.
    const skew = yield* client.serverSkew
    // A sandbox's declared clock (src/api/ServiceClock.ts) places our instants on its days, when its
    // Date is more than rule 7's minute from ours (a time scale, an advance); within it, as before.
    const agrees = Option.exists(skew, (ms) => Math.abs(ms) <= MAX_SKEW_MS)
    const declared = agrees || client.serviceTimes === undefined ? undefined : Option.getOrUndefined(yield* client.serviceTimes)
    const shift = Option.getOrElse(skew, () => 0)
    const syncFrom = Math.min(earliest, earliest + shift, declared?.earliest(earliest) ?? earliest) - DAY_MS
    const syncTo = Math.max(now, now + shift, declared?.latest(now) ?? now) + MAX_SKEW_MS
    const endOf = (r: Row) => (r.endedAt === null ? DateTime.toEpochMillis(r.updatedAt) : DateTime.toEpochMillis(r.endedAt))
    const latestEnd = Math.max(...[...unknown, ...watched].map(endOf))
    const sync = yield* syncDays(accountId, daysBetween(syncFrom, syncTo), {
      // A day may close an hour (or a grace) after it ends, but a resend trusts only days closed
      // after its payout could have become visible: the request's end plus the grace.
      closeAfterMs: Math.max(graceMs + requestTimeoutMs + MAX_SKEW_MS, 60 * 60 * 1000),
      trustClosedAfter: latestEnd + graceMs,
      progress: syncTo - syncFrom > 4 * DAY_MS,
      told
    }).pipe(Effect.provideService(MirrorStore, mirror), Effect.provideService(PaymentClient, client))
    const tokens = [...unknown, ...watched].map((r) => r.token)
    const byToken = groupByToken(yield* mirror.mirrorByTokens(accountId, tokens).pipe(Effect.orDie))
    const known = knownAll.filter((k) => k.answeredAt >= witnessesFrom)
    const listed = new Map((yield* mirror.mirrorByReferences(accountId, known.map((k) => k.reference)).pipe(Effect.orDie)).map((p) => [p.reference, p]))
    const evidence = {
      now,
      completeDays: sync.complete,
      byToken,
      known,
      listed,
      graceMs,
      deadlineMs: settings.reconcileDeadlineMs ?? DEFAULT_RECONCILE_DEADLINE_MS,
      skewMs: declared === undefined ? Option.getOrUndefined(skew) : declared.skewMs,
      ...(declared === undefined ? {} : { clock: declared }),
      resendUnknown: settings.resendUnknown ?? "after"
    }

    for (const row of watched) {
      const exact = (byToken.get(row.token) ?? []).filter((p) => p.currency === row.currency && p.amountMinor === row.amountMinor)
      if (exact.length > 1) yield* raiseRowAlarm(row, `resent once, and now ${exact.length} payouts carry its token (duplicate)`, exact.map((p) => p.reference))
    }

    const toResend: Array<number> = []
    const resendEvidence = new Map<number, string>()
    let adopted = 0
    let waiting = 0
    for (const row of unknown) {
      const endedAt = endOf(row)
      const before = Option.getOrElse(HashMap.get(yield* Ref.get(misses), row.idx), (): ReadonlyArray<number> => [])
      const tokenListed = (byToken.get(row.token) ?? []).length > 0
      // A miss counts only for a sync that read every day the row needs completely (rule 4).
      const missed = !tokenListed && sync.at >= endedAt && serviceDaysNeeded({ intentAt: intentOf(row) }, now, declared)?.every((d) => sync.complete.has(d)) === true
      const seen = missed ? [...before, sync.at] : before
      if (missed) yield* Ref.update(misses, HashMap.set(row.idx, seen))
      const decision: Decision = decide(
        {
          idx: row.idx,
          token: row.token,
          amountMinor: row.amountMinor ?? 0,
          currency: row.currency,
          intentAt: intentOf(row),
          endedAt,
          resends: row.resends,
          ownedHere: row.intentOwner === null || row.intentOwner === ctx.owner,
          misses: seen
        },
        evidence
      )
      switch (decision._tag) {
        case "Adopt":
          adopted++
          yield* adoptListed(row.idx, "unknown", decision.payout, "reconcile", `adopted: ${decision.evidence}`).pipe(Effect.provide(parts))
          break
        case "Alarm":
          yield* raiseRowAlarm(row, decision.reason, decision.references)
          break
        case "AccountAlarm":
          waiting++
          if ((yield* Ref.get(ctx.accountAlarm)) === undefined) {
            yield* mirror.raiseAccountAlarm(accountId, decision.reason, now).pipe(Effect.orDie)
            yield* Ref.set(ctx.accountAlarm, decision.reason)
            yield* tell(RunEvent.AccountAlarmRaised({ batchId, reason: decision.reason, references: decision.references }))
          }
          break
        case "Resend":
          if ((yield* Ref.get(ctx.accountAlarm)) !== undefined) {
            waiting++
            break
          }
          toResend.push(row.idx)
          resendEvidence.set(row.idx, decision.evidence)
          break
        case "Wait": {
          waiting++
          if (!Option.exists(HashMap.get(yield* Ref.get(lastWait), row.idx), Equal.equals(decision.reason))) {
            yield* Ref.update(lastWait, HashMap.set(row.idx, decision.reason))
            yield* tell(RunEvent.Waiting({ line: row.line, reason: decision.reason, until: decision.until, alarmAt: endedAt + evidence.deadlineMs }))
          }
          break
        }
      }
    }
    yield* tellRaised
    if (toResend.length > 0) {
      yield* writer.flush
      // Claimed a few at a time, each group right before it is sent: a crash then cuts at most one
      // group's resends (each of which counts as its row's one automatic resend).
      const group = Math.max(1, settings.concurrency)
      for (let i = 0; i < toResend.length; i += group) {
        const claimed: Array<Row> = []
        for (const idx of toResend.slice(i, i + group)) {
          const rows = yield* claimResend(idx, `resend: ${resendEvidence.get(idx)}`)
          claimed.push(...rows)
        }
        for (const r of claimed) {
          yield* Ref.update(misses, HashMap.remove(r.idx))
          yield* tell(RunEvent.Resending({ line: r.line, token: r.token, evidence: resendEvidence.get(r.idx) ?? "" }))
        }
        yield* resend(claimed)
      }
    }
    return { waiting, adopted, resent: toResend.length, alarms: (yield* Ref.get(ctx.alarms)).size } satisfies ReconcileRound
  })

  return { round } as const
})

/** Decides, with the listing's evidence, what becomes of each row whose POST outcome is unknown. */
export class Reconciler extends Effect.Service<Reconciler>()("run/Reconciler", { effect: make }) {}
