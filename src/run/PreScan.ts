/**
 * The pre-scan (DESIGN 7): at every start and resume, before any `validated` row is claimed, the
 * listing mirror is synced over the service's 90 days and the batch's tokens are looked for. A token
 * found means the payout was already made (by a lost or second store, another working directory, an
 * earlier install): the row adopts it, loudly, and is not paid again. A token listed with another
 * amount or currency is an alarm for the row. Runs that follow each other are then safe whatever
 * store they use; runs at the same moment need a shared store (DESIGN 12).
 */
import { Clock, Effect, Option, Ref, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { carriesToken } from "../domain/Token.ts"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { syncDays } from "./ListingMirror.ts"
import { DAY_MS, daysBetween, HISTORY_DAYS } from "./ListingDays.ts"
import { MAX_SKEW_MS } from "./ResendRules.ts"
import { RunContext } from "./RunContext.ts"
import { TransitionWriter } from "./TransitionWriter.ts"
import { adoptListed } from "./Adopt.ts"
import { RunEvent, tell } from "./Notices.ts"
import { type RaisedAlarm, tellRaisedAlarms } from "./TellAlarms.ts"

export interface PreScanResult {
  readonly adopted: number
  readonly alarms: number
  readonly incompleteDays: number
}

const CHUNK = 2_000
/** Adopted rows named one by one in the log before the count. */
const SHOWN = 5

export const preScan = Effect.fn("PreScan.run")(function* () {
    const ctx = yield* RunContext
    const [mirror, reads] = yield* Effect.all([MirrorStore, Rows])
    const client = yield* PaymentClient
    const writer = yield* TransitionWriter
    const { accountId, batchId } = ctx
    const first = yield* reads.rowsInStates(accountId, batchId, ["validated"], { limit: 1 })
    if (first.length === 0) return { adopted: 0, alarms: 0, incompleteDays: 0 } satisfies PreScanResult
    // The service's days: its clock may differ from ours (learnt from the Date header of any answer).
    const now = yield* Clock.currentTimeMillis
    const shift = Option.getOrElse(yield* client.serverSkew, () => 0)
    const days = daysBetween(Math.min(now, now + shift) - HISTORY_DAYS * DAY_MS, Math.max(now, now + shift) + MAX_SKEW_MS)
    const sync = yield* syncDays(accountId, days, { closeAfterMs: 6 * 60 * 60 * 1000, progress: true })
    if (sync.incomplete.size > 0) {
      yield* tell(RunEvent.PreScanIncomplete({ days: sync.incomplete.size, first: [...sync.incomplete.keys()].slice(0, 3) }))
    }
    let adopted = 0
    let alarms = 0
    const raised: Array<RaisedAlarm> = []
    // Only the rows whose token the mirror holds at all (the store's index finds them): reading every
    // row of a big batch here cost about as much as loading it.
    const listedIdxs = yield* mirror.listedRows(accountId, batchId, "validated")
    yield* Stream.fromIterable(listedIdxs).pipe(
      Stream.grouped(CHUNK),
      Stream.runForEach((chunk) =>
        Effect.gen(function* () {
          const rows = (yield* Effect.forEach(chunk, (idx) => reads.getRow(accountId, batchId, idx))).flatMap((row) =>
            Option.isSome(row) && row.value.state === "validated" ? [row.value] : []
          )
          const listed = yield* mirror.mirrorByTokens(accountId, rows.map((r) => r.token))
          if (listed.length === 0) return
          const byToken = new Map<string, Array<MirroredPayout>>()
          for (const p of listed) {
            if (p.token === null || !carriesToken(p.description, p.token)) continue
            byToken.set(p.token, [...(byToken.get(p.token) ?? []), p])
          }
          for (const row of rows) {
            const carrying = byToken.get(row.token) ?? []
            if (carrying.length === 0) continue
            const exact = carrying.filter((p) => p.currency === row.currency && p.amountMinor === row.amountMinor)
            // A payout our store records for another batch's row is that row's, not this one's: the same
            // content without ids again (a repeat after the repeat window, or the file re-saved?).
            const recorded = exact.length === 1 ? yield* reads.findRowByReference(accountId, exact[0].reference) : Option.none()
            if (Option.isSome(recorded) && recorded.value.batchId !== batchId) {
              alarms++
              const reason = `its token's payout ${exact[0].reference} is already the payout of batch ${recorded.value.batchId} line ${recorded.value.line} (the same row again: a repeat, or the same file re-saved?)`
              yield* mirror.setRowAlarm(accountId, batchId, row.idx, reason, [exact[0].reference])
              yield* Ref.update(ctx.alarms, (m) => new Map([...m, [row.idx, { reason, references: [exact[0].reference] }]]))
              yield* tell(RunEvent.PreScanAlarm({ batchId, line: row.line, reason, references: [] }))
              raised.push({ line: row.line, reason })
              continue
            }
            if (exact.length === 1 && carrying.length === 1) {
              const p = exact[0]
              adopted++
              // The first few by name, the rest counted: a whole file re-run must not flood the log.
              if (adopted <= SHOWN) yield* tell(RunEvent.AlreadyPaid({ line: row.line, reference: p.reference, status: p.status, day: p.day }))
              yield* adoptListed(row.idx, "validated", p, "prescan", `already paid: ${p.reference} (${p.status}, listed on ${p.day}) carries [${row.token}]; adopted, not paid again`)
              continue
            }
            alarms++
            const reason =
              exact.length > 1
                ? `before sending, ${exact.length} listed payouts already carry this row's token`
                : "before sending, a listed payout carries this row's token with another amount or currency"
            const references = carrying.map((p) => p.reference)
            yield* mirror.setRowAlarm(accountId, batchId, row.idx, reason, references)
            yield* Ref.update(ctx.alarms, (m) => new Map([...m, [row.idx, { reason, references }]]))
            yield* tell(RunEvent.PreScanAlarm({ batchId, line: row.line, reason, references }))
            raised.push({ line: row.line, reason })
          }
        })
      )
    )
    yield* writer.flush
    // --notify: told now, before the rest of the batch is sent, not only at the run's end.
    yield* tellRaisedAlarms(ctx, raised)
    if (adopted > 0) {
      yield* tell(RunEvent.PreScanAdopted({ count: adopted }))
    }
    return { adopted, alarms, incompleteDays: sync.incomplete.size } satisfies PreScanResult
  })
