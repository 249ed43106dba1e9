/**
 * `payouts reconcile --account`: the daily check a finance team runs from cron. After a sync of the
 * listing mirror over the service's 90 days, every mirrored payout carrying one of our tokens must
 * match exactly one row of one batch, with its amount and currency; duplicates, payouts matching no
 * row, mismatches and days that could not be read completely are listed.
 */
import { Clock, Effect, Stream } from "effect"
import { TOKEN_PATTERN } from "../domain/Token.ts"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { serviceDays, syncDays } from "./ListingMirror.ts"
import { DAY_MS, dayOf, HISTORY_DAYS } from "./ListingDays.ts"
import type { AccountId } from "../domain/Ids.ts"
import { AccountFact, type AccountFinding } from "./Findings.ts"

export interface AccountReport {
  readonly from: string
  readonly to: string
  readonly payouts: number
  readonly tokened: number
  readonly findings: ReadonlyArray<AccountFinding>
  readonly ok: boolean
}

export const checkAccount = Effect.fn("AccountCheck.run")(function* (accountId: AccountId) {
    const [mirror, reads] = yield* Effect.all([MirrorStore, Rows])
    const now = yield* Clock.currentTimeMillis
    // The service's days (its Date header), not ours: a clock ahead of ours lists payouts on its own days.
    const days = yield* serviceDays(now - HISTORY_DAYS * DAY_MS, now)
    const sync = yield* syncDays(accountId, days, { closeAfterMs: 6 * 60 * 60 * 1000, progress: true })
    const byToken = new Map<string, Array<MirroredPayout>>()
    let payouts = 0
    yield* mirror.mirrorOfDays(accountId, days[0], days[days.length - 1]).pipe(
      Stream.runForEach((p) =>
        Effect.sync(() => {
          payouts++
          if (p.token === null || !TOKEN_PATTERN.test(p.token)) return
          const bucket = byToken.get(p.token)
          if (bucket === undefined) byToken.set(p.token, [p])
          else bucket.push(p)
        })
      )
    )
    const findings: Array<AccountFinding> = []
    for (const [day, gap] of sync.incomplete) {
      findings.push({ kind: "incomplete", token: "", batchId: null, line: null, fact: AccountFact.Incomplete({ day, gap }), references: [] })
    }
    const alarm = yield* mirror.accountAlarm(accountId)
    if (alarm._tag === "Some") findings.push({ kind: "alarm", token: "", batchId: null, line: null, fact: AccountFact.Alarm({ reason: alarm.value.reason }), references: [] })
    let tokened = 0
    for (const [token, listed] of byToken) {
      tokened += listed.length
      const refs = listed.map((p) => p.reference)
      const found = yield* reads.findRowByToken(accountId, token)
      if (found._tag === "None") {
        findings.push({ kind: "unmatched", token, batchId: null, line: null, fact: AccountFact.Unmatched({ count: listed.length }), references: refs })
        continue
      }
      const row = found.value
      const where = { token, batchId: row.batchId, line: row.line }
      if (listed.length > 1) findings.push({ kind: "duplicate", ...where, fact: AccountFact.Duplicate({ count: listed.length }), references: refs })
      for (const p of listed) {
        if (p.amountMinor !== row.amountMinor || p.currency !== row.currency) {
          const fact = AccountFact.Mismatch({ reference: p.reference, amountMinor: p.amountMinor, currency: p.currency, rowAmountMinor: row.amountMinor, rowCurrency: row.currency })
          findings.push({ kind: "mismatch", ...where, fact, references: [p.reference] })
        }
      }
      if (listed.length === 1 && row.reference !== listed[0].reference) {
        findings.push({ kind: "unrecorded", ...where, fact: AccountFact.Unrecorded({ reference: listed[0].reference, recorded: row.reference, state: row.state }), references: refs })
      }
    }
    return {
      from: days[0],
      to: dayOf(now),
      payouts,
      tokened,
      findings,
      ok: findings.length === 0
    } satisfies AccountReport
  })
