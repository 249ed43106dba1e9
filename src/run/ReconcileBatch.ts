/**
 * `payouts reconcile BATCH`: our ledger against the service, after the fact. One scan of the payout
 * listing over the batch's period matched by `[token]`, then GET /payment/status for every reference:
 * tokens with no payout or several, payouts we never recorded, statuses changed since (e.g. a
 * refund), and totals and fees per currency ours vs the service's. Forward changes go to the store.
 */
import { Chunk, Clock, DateTime, Effect, Either, Option, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { checkStatusRecord } from "../api/Plausible.ts"
import { formatAmount, fromWire } from "../domain/Money.ts"
import { serviceDays, syncDays } from "./ListingMirror.ts"
import { DAY_MS, dayOf } from "./ListingDays.ts"
import type { Fence, Row } from "../store/Model.ts"
import { holdLease, runnerName } from "./Lease.ts"
import { ANSWERED_STATES, canMove, stateOfStatus, UNPAID_OUTCOME_STATES } from "../store/RowState.ts"
import { Claims } from "../store/Sql/Claims.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { Reference } from "../domain/Ids.ts"
import { BatchFact, type Finding } from "./Findings.ts"

export interface SideTotals {
  readonly completed: number
  readonly completed_amount: string
  readonly fees: string
}

export interface ReconcileReport {
  readonly batch_id: string
  readonly scanned_from: string | null
  readonly listed: number
  readonly checked: number
  readonly findings: ReadonlyArray<Finding>
  readonly totals: Readonly<Record<string, { readonly ours: SideTotals; readonly service: SideTotals; readonly agree: boolean }>>
  readonly updated: number
  /** Another process runs the batch: nothing was written, its runner keeps the ledger. */
  readonly busy?: boolean
  readonly ok: boolean
}

interface Sums {
  completed: number
  amount: number
  fees: number
}

const side = (s: Sums, currency: string): SideTotals => ({
  completed: s.completed,
  completed_amount: formatAmount(s.amount, currency),
  fees: formatAmount(s.fees, currency)
})

/**
 * Changes are written under the batch's lease (DESIGN 7: every row transition is fenced). While a
 * runner holds it, the batch is compared and reported but the store is left to that runner.
 */
export const reconcileBatch = Effect.fn("ReconcileBatch.run")(function* (accountId: AccountId, batchId: BatchId) {
    const owner = runnerName("reconcile")
    return yield* Effect.scoped(Effect.flatMap(holdLease(accountId, batchId, owner, "5 minutes"), (fence) => compare(accountId, batchId, fence)))
  })

const compare = Effect.fn("ReconcileBatch.compare")(function* (accountId: AccountId, batchId: BatchId, fence: Option.Option<Fence>) {
    const [reads, mirror, claims] = yield* Effect.all([Rows, MirrorStore, Claims])
    const client = yield* PaymentClient
    const rows = Chunk.toReadonlyArray(yield* Stream.runCollect(reads.streamRows(accountId, batchId)))
    const byToken = new Map(rows.map((r) => [r.token, r]))
    const intents = rows.flatMap((r) => (r.intentAt === null ? [] : [DateTime.toEpochMillis(r.intentAt)]))
    const now = yield* Clock.currentTimeMillis
    const fromDate = intents.length === 0 ? null : dayOf(Math.min(...intents) - DAY_MS)
    // The listing mirror, synced over the batch's days: complete reads only (DESIGN 7).
    const sync =
      intents.length === 0
        ? undefined
        : yield* syncDays(accountId, yield* serviceDays(Math.min(...intents) - DAY_MS, now), { closeAfterMs: 6 * 60 * 60 * 1000 })
    const listed = new Map<string, Array<string>>()
    for (const p of yield* mirror.mirrorByTokens(accountId, [...byToken.keys()])) {
      if (p.token === null || p.description === null || !p.description.startsWith(`[${p.token}]`)) continue
      const refs = listed.get(p.token) ?? []
      if (!refs.includes(p.reference)) refs.push(p.reference)
      listed.set(p.token, refs)
    }

    const findings: Array<Finding> = []
    const ours = new Map<string, Sums>()
    const theirs = new Map<string, Sums>()
    const add = (m: Map<string, Sums>, currency: string, amount: number, fee: number) => {
      const s = m.get(currency) ?? { completed: 0, amount: 0, fees: 0 }
      s.completed += 1
      s.amount += amount
      s.fees += fee
      m.set(currency, s)
    }
    const note = (row: Row, kind: Finding["kind"], fact: BatchFact, references: ReadonlyArray<string>) =>
      findings.push({ kind, line: row.line, token: row.token, fact, references })

    let updated = 0
    let checked = 0
    yield* Effect.forEach(
      rows,
      (row) =>
        Effect.gen(function* () {
          if (row.state === "completed") add(ours, row.currency, row.amountMinor ?? 0, row.feeMinor ?? 0)
          const refs = listed.get(row.token) ?? []
          if (refs.length > 1) note(row, "duplicate", BatchFact.Duplicate({ count: refs.length }), refs)
          for (const ref of refs) if (ref !== row.reference) note(row, "unrecorded", BatchFact.Unrecorded({ reference: ref, recorded: row.reference }), [ref])
          const references = [...new Set([...(row.reference === null ? [] : [row.reference]), ...refs])]
          if (references.length === 0) {
            if (ANSWERED_STATES.includes(row.state)) note(row, "missing", BatchFact.NoPayout({ state: row.state }), [])
            return
          }
          for (const reference of references) {
            checked += 1
            const record = yield* client.status(reference).pipe(Effect.either)
            if (record._tag === "Left") {
              if (record.left._tag === "NotFound") note(row, "missing", BatchFact.UnknownToService({ reference }), [reference])
              else note(row, "unreachable", BatchFact.StatusUnread({ reference, message: record.left.message }), [reference])
              continue
            }
            const r = record.right
            const fee = checkStatusRecord(r, { reference, amountMinor: row.amountMinor, currency: row.currency }, client.scrub)
            // An answer no payout of ours can have is shown, never added up nor stored.
            if (Either.isLeft(fee)) {
              note(row, "anomaly", BatchFact.Anomaly({ problem: fee.left }), [reference])
              continue
            }
            if (r.status === "completed") add(theirs, r.currency, fromWire(r.amount, r.currency), fee.right)
            if (reference !== row.reference && !(row.reference === null && refs.length === 1)) continue
            const state = stateOfStatus(r.status)
            if (state === row.state) continue
            note(row, "changed", BatchFact.Changed({ ledger: row.state, service: r.status }), [reference])
            if (canMove(row.state, state) && Option.isSome(fence)) {
              const applied = yield* claims.recordTransition(accountId, batchId, {
                idx: row.idx,
                from: [row.state],
                to: state,
                reference: Reference.make(reference),
                feeMinor: fee.right,
                source: "reconcile",
                detail: `payouts reconcile: service says ${r.status}`,
                ...(UNPAID_OUTCOME_STATES.includes(state) ? { error: r.status_description ?? r.status } : {})
              }, fence.value)
              if (applied) updated += 1
            }
          }
        }),
      { concurrency: 8, discard: true }
    )

    const currencies = [...new Set([...ours.keys(), ...theirs.keys()])].sort()
    const empty = (): Sums => ({ completed: 0, amount: 0, fees: 0 })
    const totals = Object.fromEntries(
      currencies.map((c) => {
        const o = ours.get(c) ?? empty()
        const t = theirs.get(c) ?? empty()
        return [c, { ours: side(o, c), service: side(t, c), agree: o.amount === t.amount && o.fees === t.fees && o.completed === t.completed }]
      })
    )
    for (const [day, gap] of sync?.incomplete ?? []) {
      findings.push({ kind: "unreachable", line: 0, token: "", fact: BatchFact.ListingIncomplete({ day, gap }), references: [] })
    }
    findings.sort((a, b) => a.line - b.line)
    return {
      batch_id: batchId,
      scanned_from: fromDate,
      listed: [...listed.values()].reduce((n, refs) => n + refs.length, 0),
      checked,
      findings,
      totals,
      updated,
      ...(Option.isNone(fence) ? { busy: true } : {}),
      ok: findings.length === 0 && Object.values(totals).every((t) => t.agree)
    } satisfies ReconcileReport
  })

export const reconciledAt = Effect.map(Clock.currentTimeMillis, (ms) => DateTime.formatIso(DateTime.unsafeMake(ms)))
