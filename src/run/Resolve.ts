/**
 * `payouts resolve` (DESIGN 7): a person settles what reconciliation could not prove. Under the
 * batch's lease, after a sync of the listing mirror, it shows each unknown or alarmed row's evidence
 * and applies one decision, recorded as an event with who and why: adopt a reference (checked by a
 * status lookup and for uniqueness), resend (refused while any candidate payout exists), abandon
 * (declared not paid; never retried), or acknowledge an alarm; `--listing-ok` clears an account alarm.
 */
import { Chunk, Clock, Data, DateTime, Duration, Effect, Either, Option, Stream } from "effect"
import { PaymentClient } from "../api/Client.ts"
import { checkPayoutAnswer, checkStatusRecord, quote } from "../api/Plausible.ts"
import { fromWire } from "../domain/Money.ts"
import { maskPhone } from "../domain/Phone.ts"
import { carriesToken } from "../domain/Token.ts"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import type { Row, RowEvent } from "../store/Model.ts"
import { IN_DOUBT_STATES, stateOfStatus } from "../store/RowState.ts"
import { StateStore } from "../store/StateStore.ts"
import { acquireLease, runnerName } from "./Lease.ts"
import { DAY_MS, daysBetween, serviceDays, syncDays } from "./ListingMirror.ts"
import { payoutRequest } from "./PayoutBody.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { Reference } from "../domain/Ids.ts"

export class ResolveError extends Data.TaggedError("ResolveError")<{ readonly message: string }> {}

export type Decision =
  | { readonly _tag: "Show" }
  | { readonly _tag: "Adopt"; readonly reference: string }
  | { readonly _tag: "Resend" }
  | { readonly _tag: "Abandon" }
  | { readonly _tag: "Acknowledge" }

export interface ResolveRequest {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly line: number | undefined
  readonly by: string
  readonly reason: string
  readonly decision: Decision
  readonly listingOk: boolean
  readonly urls: { readonly returnUrl: string; readonly cancelUrl: string; readonly callbackUrl: string | undefined }
}

export interface RowEvidence {
  readonly line: number
  readonly id: string | null
  readonly token: string
  readonly amount: string
  readonly phone: string
  readonly state: string
  readonly alarm: string | null
  readonly reference: string | null
  /** Listed payouts whose description starts with the row's token (any amount). */
  readonly carrying: ReadonlyArray<MirroredPayout>
  /** Listed payouts of the same amount and currency without a readable token, around the intent. */
  readonly possible: ReadonlyArray<MirroredPayout>
  readonly events: ReadonlyArray<RowEvent>
}

export interface ResolveOutcome {
  readonly accountAlarm: string | undefined
  readonly listingCleared: number
  readonly incompleteDays: ReadonlyArray<string>
  readonly rows: ReadonlyArray<RowEvidence>
  readonly applied: string | undefined
}

const LEASE_TTL = "5 minutes"
/** A person's resend goes out only while the lease taken at the start surely holds (a minute's margin). */
const leaseStillOurs = (since: number) =>
  Effect.map(Clock.currentTimeMillis, (now) => now < since + Duration.toMillis(LEASE_TTL) - 60_000)

const fail = (message: string) => Effect.fail(new ResolveError({ message }))

const evidenceOf = Effect.fn("Resolve.evidence")(function* (accountId: AccountId, batchId: BatchId, row: Row) {
    const store = yield* StateStore
    const carrying = (yield* store.account(accountId).mirrorByTokens([row.token])).filter((p) => carriesToken(p.description, row.token))
    const intent = row.intentAt === null ? Date.now() : DateTime.toEpochMillis(row.intentAt)
    const days = daysBetween(intent - DAY_MS, intent + 2 * DAY_MS)
    const possible = Chunk.toReadonlyArray(
      yield* store.account(accountId).mirrorOfDays(days[0], days[days.length - 1]).pipe(
        Stream.filter((p) => p.token === null && p.currency === row.currency && p.amountMinor === row.amountMinor),
        Stream.take(20),
        Stream.runCollect
      )
    )
    const events = yield* store.batch(accountId, batchId).events(row.idx)
    return {
      line: row.line,
      id: row.rowId,
      token: row.token,
      amount: `${row.amountMinor ?? ""} ${row.currency} (minor units)`,
      phone: maskPhone(row.phone),
      state: row.state,
      alarm: row.alarm,
      reference: row.reference,
      carrying,
      possible,
      events
    } satisfies RowEvidence
  })

export const resolve = Effect.fn("Resolve.run")(function* (request: ResolveRequest) {
    const store = yield* StateStore
    const client = yield* PaymentClient
    const { accountId, batchId } = request
    const owner = runnerName("resolve")
    const leaseStart = yield* Clock.currentTimeMillis
    const held = yield* acquireLease(accountId, batchId, owner, LEASE_TTL)
    if (Option.isNone(held)) {
      return yield* fail(`batch ${batchId} is being run by another process; stop it (or wait for it to end) before resolving`)
    }
    const fence = held.value
    return yield* Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const all = Chunk.toReadonlyArray(yield* Stream.runCollect(store.batch(accountId, batchId).streamRows()))
      const open = all.filter((r) => IN_DOUBT_STATES.includes(r.state) || r.alarm !== null)
      const targets = request.line === undefined ? open : all.filter((r) => r.line === request.line)
      if (request.line !== undefined && targets.length === 0) return yield* fail(`no row on line ${request.line} in batch ${batchId}`)

      const intents = open.flatMap((r) => (r.intentAt === null ? [] : [DateTime.toEpochMillis(r.intentAt)]))
      const from = intents.length === 0 ? now : Math.min(...intents)
      const sync = yield* syncDays(accountId, yield* serviceDays(from - DAY_MS, now), { closeAfterMs: 6 * 60 * 60 * 1000, progress: true, trustClosedAfter: now })

      let listingCleared = 0
      if (request.listingOk) {
        listingCleared = yield* store.account(accountId).clearAccountAlarm(request.by, request.reason, now)
      }
      let applied: string | undefined
      const decision = request.decision
      if (decision._tag !== "Show") {
        if (request.line === undefined) return yield* fail("name the row to decide with --line N")
        const row = targets[0]
        const evidence = yield* evidenceOf(accountId, batchId, row)
        const who = `by ${request.by}: ${request.reason}`
        switch (decision._tag) {
          case "Adopt": {
            if (row.state !== "unknown") return yield* fail(`line ${row.line} is ${row.state}, not unknown: nothing to adopt`)
            const record = yield* client.status(decision.reference).pipe(
              Effect.mapError((e) => new ResolveError({ message: `status of ${decision.reference}: ${e.message}` }))
            )
            if (record.type !== "payout" || record.currency !== row.currency || fromWire(record.amount, record.currency) !== row.amountMinor) {
              return yield* fail(`${decision.reference} is a ${record.type} of ${quote(record.amount)} ${quote(record.currency, client.scrub)}, not this row's payout`)
            }
            const fee = checkStatusRecord(record, { reference: decision.reference, amountMinor: row.amountMinor, currency: row.currency }, client.scrub)
            if (Either.isLeft(fee)) return yield* fail(`${decision.reference}: ${fee.left}; not adopted`)
            const taken = yield* store.account(accountId).findRowByReference(decision.reference)
            if (Option.isSome(taken) && !(taken.value.batchId === batchId && taken.value.idx === row.idx)) {
              return yield* fail(`${decision.reference} already belongs to line ${taken.value.line} of batch ${taken.value.batchId}`)
            }
            yield* store.batch(accountId, batchId).recordTransition({
              idx: row.idx,
              from: ["unknown"],
              to: stateOfStatus(record.status),
              reference: Reference.make(decision.reference),
              feeMinor: fee.right,
              source: "operator",
              detail: `adopted ${decision.reference} (${record.status}) ${who}`
            }, fence)
            applied = `line ${row.line}: adopted ${decision.reference} (${record.status})`
            break
          }
          case "Resend": {
            if (row.state !== "unknown") return yield* fail(`line ${row.line} is ${row.state}: only an unknown row can be resent`)
            const halt = yield* store.account(accountId).activeHalt()
            if (Option.isSome(halt)) {
              return yield* fail(`line ${row.line}: refused, the account is halted by ${halt.value.by} (${halt.value.reason}); lift it first with payouts halt --lift`)
            }
            if (evidence.carrying.length > 0) {
              return yield* fail(`line ${row.line}: refused, ${evidence.carrying.map((p) => p.reference).join(", ")} carries its token; adopt it instead`)
            }
            const claimed = yield* store.batch(accountId, batchId).claimForResend([row.idx], `resend ${who}`, fence)
            if (claimed.length === 0) return yield* fail(`line ${row.line} changed meanwhile; look again`)
            const sent = yield* client.payout(payoutRequest(claimed[0], request.urls), leaseStillOurs(leaseStart)).pipe(Effect.either)
            const fee = sent._tag === "Right" ? checkPayoutAnswer(sent.right, row, client.scrub) : undefined
            if (sent._tag === "Right" && fee !== undefined && Either.isLeft(fee)) {
              // Sent, answered with a reference, and an answer no payout of ours has: in flight, under alarm.
              yield* store.batch(accountId, batchId).recordTransition({ idx: row.idx, from: ["submitting"], to: "submitted", reference: sent.right.reference, source: "response", detail: `resent ${who}` }, fence)
              yield* store.batch(accountId, batchId).setRowAlarm(row.idx, `anomaly: ${fee.left}`, [sent.right.reference])
              applied = `line ${row.line}: resent, ${sent.right.reference}; ALARM: ${fee.left}`
            } else if (sent._tag === "Right") {
              yield* store.batch(accountId, batchId).recordTransition({
                idx: row.idx,
                from: ["submitting"],
                to: stateOfStatus(sent.right.status),
                reference: sent.right.reference,
                ...(fee === undefined || Either.isLeft(fee) || fee.right === undefined ? {} : { feeMinor: fee.right }),
                source: "response",
                detail: `resent ${who}`
              }, fence)
              applied = `line ${row.line}: resent, ${sent.right.reference} (${sent.right.status})`
            } else if (sent.left._tag === "NotSent" || sent.left._tag === "RateLimited" || sent.left._tag === "AuthError") {
              yield* store.batch(accountId, batchId).recordTransition({ idx: row.idx, from: ["submitting"], to: "unknown", error: sent.left.message, source: "operator", detail: `resend not sent: ${sent.left.message}` }, fence)
              applied = `line ${row.line}: the resend was not sent (${sent.left.message}); the row stays unknown`
            } else if (sent.left._tag === "ValidationError" || sent.left._tag === "InsufficientBalance") {
              yield* store.batch(accountId, batchId).recordTransition({ idx: row.idx, from: ["submitting"], to: "failed", error: sent.left.message, source: "response", detail: `resend refused ${who}` }, fence)
              applied = `line ${row.line}: the service refused the resend: ${sent.left.message}`
            } else {
              yield* store.batch(accountId, batchId).recordTransition({ idx: row.idx, from: ["submitting"], to: "unknown", error: sent.left.message, source: "response", detail: `resend ${who}: no answer` }, fence)
              applied = `line ${row.line}: resent, but no answer (${sent.left.message}): it is unknown again`
            }
            break
          }
          case "Abandon": {
            if (row.state !== "unknown") return yield* fail(`line ${row.line} is ${row.state}: only an unknown row can be abandoned`)
            yield* store.batch(accountId, batchId).recordTransition({ idx: row.idx, from: ["unknown"], to: "abandoned", error: `abandoned ${who}`, source: "operator", detail: `abandoned ${who}` }, fence)
            applied = `line ${row.line}: abandoned (never retried automatically)`
            break
          }
          case "Acknowledge":
            applied = `line ${row.line}: alarm acknowledged`
            break
        }
        yield* store.batch(accountId, batchId).setRowAlarm(row.idx, null, [])
      }

      const shown = yield* Effect.forEach(
        (yield* Effect.forEach(targets, (r) => Effect.map(store.batch(accountId, batchId).getRow(r.idx), Option.getOrElse(() => r)))),
        (r) => evidenceOf(accountId, batchId, r)
      )
      const alarm = yield* store.account(accountId).accountAlarm()
      return {
        accountAlarm: Option.match(alarm, { onNone: () => undefined, onSome: (a) => a.reason }),
        listingCleared,
        incompleteDays: [...sync.incomplete.keys()],
        rows: shown,
        applied
      } satisfies ResolveOutcome
    }).pipe(Effect.ensuring(Effect.zipRight(store.batch(accountId, batchId).releaseIntents(owner), store.batch(accountId, batchId).releaseLease(owner)).pipe(Effect.ignore)))
  })

const iso = (ms: number) => new Date(ms).toISOString()

export const describeResolve = (batchId: BatchId, o: ResolveOutcome): string => {
  const lines: Array<string> = []
  if (o.listingCleared > 0) lines.push(`Account alarm cleared (${o.listingCleared}).`)
  if (o.accountAlarm !== undefined) lines.push(`ACCOUNT ALARM: ${o.accountAlarm}\n  After checking the listing by hand: payouts resolve ${batchId} --listing-ok --by NAME --reason TEXT`)
  if (o.incompleteDays.length > 0) lines.push(`The listing of ${o.incompleteDays.join(", ")} could not be read completely: absence is not proven there.`)
  if (o.applied !== undefined) lines.push(`Done: ${o.applied}.`)
  if (o.rows.length === 0) lines.push(`Batch ${batchId}: no row is unknown or under alarm.`)
  for (const r of o.rows) {
    lines.push(`line ${r.line}${r.id === null ? "" : ` (id ${r.id})`}: ${r.state}, ${r.amount}, ${r.phone}, token [${r.token}]${r.reference === null ? "" : `, reference ${r.reference}`}`)
    if (r.alarm !== null) lines.push(`  alarm: ${r.alarm}`)
    lines.push(
      r.carrying.length === 0
        ? "  no listed payout carries its token"
        : `  listed payouts carrying its token: ${r.carrying.map((p) => `${p.reference} (${p.amountMinor} ${p.currency}, ${p.status}, ${p.day})`).join("; ")}`
    )
    if (r.possible.length > 0) {
      lines.push(`  same amount and currency without a readable token (check by hand): ${r.possible.map((p) => `${p.reference} "${p.description ?? ""}"`).join("; ")}`)
    }
    for (const e of r.events.slice(-6)) lines.push(`  ${iso(DateTime.toEpochMillis(e.at))} ${e.fromState ?? "-"} -> ${e.toState} (${e.source})${e.detail === null ? "" : `: ${e.detail}`}`)
  }
  return lines.join("\n")
}
