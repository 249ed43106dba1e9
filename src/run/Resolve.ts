/**
 * `payouts resolve` (DESIGN 7): a person settles what reconciliation could not prove. Under the
 * batch's lease, after a sync of the listing mirror, it shows the rows that need a person (unknown or
 * under alarm) with their evidence, and applies one decision (ResolveDecision.ts) to the rows named:
 * one line, several (`--lines`), or every unknown row. A decision over several rows is checked whole
 * before anything is asked or done, asked once, and re-synced after the question so nothing decided
 * rests on a listing read before a person's pause. `--listing-ok` clears an account alarm.
 */
import { Chunk, Clock, DateTime, Duration, Effect, Either, Option, Stream } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { type Fence, needsPerson, type Row } from "../store/Model.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { holdLease, runnerName } from "./Lease.ts"
import { serviceDays, syncDays } from "./ListingMirror.ts"
import { DAY_MS, daysBetween } from "./ListingDays.ts"
import {
  type Applied,
  decide,
  type Decision,
  type DecisionContext,
  type RedirectUrls,
  refuse,
  resendBlock,
  type RowDecision,
  unfitFor
} from "./ResolveDecision.ts"
import { type ResolveError, ResolveRefusal, type RowRefusal } from "./ResolveRefusal.ts"
import { evidenceOf, type RowEvidence } from "./ResolveEvidence.ts"

/** Which rows a command names: those needing a person (a look), one line, several, or every unknown row. */
export type Selection =
  | { readonly _tag: "NeedingPerson" }
  | { readonly _tag: "Line"; readonly line: number }
  | { readonly _tag: "Lines"; readonly lines: ReadonlyArray<number> }
  | { readonly _tag: "AllUnknown" }

export interface ResolveRequest {
  readonly accountId: AccountId
  readonly batchId: BatchId
  readonly selection: Selection
  /** Who decides; undefined for a look. */
  readonly by: string | undefined
  readonly reason: string
  readonly decision: Decision
  readonly listingOk: boolean
  readonly urls: RedirectUrls
  /** Asked once before a decision over the rows given (already checked); false leaves everything as it was. */
  readonly confirm: ((rows: ReadonlyArray<RowEvidence>) => Effect.Effect<boolean>) | undefined
}

/** A row of the batch that still needs a person once the command is done. */
export interface OpenRow {
  readonly line: number
  readonly state: string
  readonly amountMinor: number | null
  readonly currency: string
}

export interface ResolveOutcome {
  readonly batchId: BatchId
  readonly accountAlarm: string | undefined
  readonly listingCleared: number
  readonly incompleteDays: ReadonlyArray<string>
  /** The decision asked for (undefined for a look), and whether the person said no at the question. */
  readonly decision: { readonly kind: RowDecision["_tag"]; readonly lines: ReadonlyArray<number>; readonly declined: boolean } | undefined
  readonly applied: ReadonlyArray<Applied>
  /** Rows of the decision it could not apply (checked again at the moment of applying), with why. */
  readonly refused: ReadonlyArray<{ readonly line: number; readonly refusal: ResolveRefusal }>
  /** The rows shown: those named, or every row needing a person. */
  readonly rows: ReadonlyArray<RowEvidence>
  /** Every row of the batch that still needs a person after the command. */
  readonly stillOpen: ReadonlyArray<OpenRow>
  /** Rows claimed by a run that stopped without its answer: running the file again settles them. */
  readonly claimed: ReadonlyArray<number>
}

const LEASE_TTL = Duration.minutes(5)

const readRows = (accountId: AccountId, batchId: BatchId) =>
  Effect.flatMap(Rows, (reads) => Effect.map(Stream.runCollect(reads.streamRows(accountId, batchId)), Chunk.toReadonlyArray))

/** The rows a selection names, or why it names none the decision can take. */
const selectRows = (request: ResolveRequest, all: ReadonlyArray<Row>): Effect.Effect<ReadonlyArray<Row>, ResolveError> => {
  const { selection, batchId } = request
  const deciding = request.decision._tag !== "Show"
  switch (selection._tag) {
    case "NeedingPerson":
      return Effect.succeed(all.filter(needsPerson))
    case "AllUnknown": {
      const unknown = all.filter((r) => r.state === "unknown")
      return unknown.length === 0 && deciding ? refuse(ResolveRefusal.NoneUnknown({ batchId })) : Effect.succeed(unknown)
    }
    case "Line":
    case "Lines": {
      const wanted = selection._tag === "Line" ? [selection.line] : selection.lines
      const byLine = new Map(all.map((r) => [r.line, r]))
      const missing = wanted.filter((line) => !byLine.has(line))
      if (missing.length > 0) {
        const first = all.reduce((m, r) => Math.min(m, r.line), Infinity)
        const last = all.reduce((m, r) => Math.max(m, r.line), 0)
        return refuse(ResolveRefusal.NoSuchLines({ batchId, missing, span: all.length === 0 ? undefined : [first, last] }))
      }
      const rows = wanted.map((line) => byLine.get(line)!)
      const decision = request.decision
      if (decision._tag === "Show") return Effect.succeed(rows)
      const settled = rows.filter((r) => !needsPerson(r))
      if (settled.length > 0) return refuse(ResolveRefusal.NeedsNoPerson({ rows: settled.map((r) => ({ line: r.line, state: r.state, unfit: unfitFor(decision, r) })) }))
      return Effect.succeed(rows)
    }
  }
}

/** The days of a row's intent (a day before it, to now) that the sync could not read completely. */
const unreadDaysOf = (row: Row, incomplete: ReadonlyMap<string, unknown>, now: number): ReadonlyArray<string> => {
  const intent = row.intentAt === null ? now : DateTime.toEpochMillis(row.intentAt)
  return daysBetween(intent - DAY_MS, now + DAY_MS).filter((day) => incomplete.has(day))
}

export const resolve = Effect.fn("Resolve.run")(function* (request: ResolveRequest) {
  const [mirror, reads] = yield* Effect.all([MirrorStore, Rows])
  const { accountId, batchId } = request
  const owner = runnerName("resolve")
  const held = yield* holdLease(accountId, batchId, owner, LEASE_TTL)
  if (Option.isNone(held)) {
    return yield* refuse(ResolveRefusal.Busy({ batchId }))
  }
  const fence: Fence = held.value
  return yield* Effect.gen(function* () {
    const sync = Effect.fn("Resolve.sync")(function* (rows: ReadonlyArray<Row>) {
      const now = yield* Clock.currentTimeMillis
      const intents = rows.flatMap((r) => (r.intentAt === null ? [] : [DateTime.toEpochMillis(r.intentAt)]))
      const from = intents.reduce((m, t) => Math.min(m, t), now)
      return yield* syncDays(accountId, yield* serviceDays(from - DAY_MS, now), { closeAfterMs: 6 * 60 * 60 * 1000, progress: true, trustClosedAfter: now })
    })
    const all = yield* readRows(accountId, batchId)
    const targets = yield* selectRows(request, all)
    const named = new Set(targets.map((r) => r.idx))
    let synced = yield* sync(all.filter((r) => needsPerson(r) || r.state === "submitting" || named.has(r.idx)))

    let listingCleared = 0
    if (request.listingOk) listingCleared = yield* mirror.clearAccountAlarm(accountId, request.by ?? "", request.reason, yield* Clock.currentTimeMillis)

    const contextOf = Effect.fn("Resolve.context")(function* (row: Row) {
      const evidence = yield* evidenceOf(accountId, batchId, row)
      const alarm = yield* mirror.accountAlarm(accountId)
      const now = yield* Clock.currentTimeMillis
      return {
        evidence,
        ctx: {
          accountId,
          batchId,
          fence,
          by: request.by ?? "",
          reason: request.reason,
          urls: request.urls,
          leaseTtl: LEASE_TTL,
          carrying: evidence.carrying,
          unreadDays: unreadDaysOf(row, synced.incomplete, now),
          accountAlarm: Option.match(alarm, { onNone: () => undefined, onSome: (a) => a.reason })
        } satisfies DecisionContext
      }
    })

    const applied: Array<Applied> = []
    const refused: Array<{ line: number; refusal: ResolveRefusal }> = []
    let declined = false
    const decision = request.decision
    if (decision._tag !== "Show") {
      if (request.selection._tag === "NeedingPerson") return yield* refuse(ResolveRefusal.NoRowsNamed())
      if (decision._tag === "Adopt" && targets.length !== 1) return yield* refuse(ResolveRefusal.AdoptOneRow())
      // Checked whole first: a decision over several rows is refused before anything is asked or done.
      const problems: Array<RowRefusal> = []
      const checked: Array<RowEvidence> = []
      for (const row of targets) {
        const { ctx, evidence } = yield* contextOf(row)
        checked.push(evidence)
        const unfit = unfitFor(decision, row) ?? (decision._tag === "Resend" ? yield* resendBlock(ctx, row) : undefined)
        if (unfit !== undefined) problems.push(unfit)
      }
      if (problems.length > 0) return yield* refuse(ResolveRefusal.Unfit({ rows: problems }))
      if (request.confirm !== undefined) {
        declined = !(yield* request.confirm(checked))
        // A person's pause may be long: what is decided rests on a listing read after the answer.
        if (!declined) synced = yield* sync(targets)
      }
      for (const row of declined ? [] : targets) {
        const current = Option.getOrElse(yield* reads.getRow(accountId, batchId, row.idx), () => row)
        const { ctx } = yield* contextOf(current)
        const result = yield* decide(ctx, current, decision).pipe(
          Effect.map((a) => Either.right<Applied>(a)),
          Effect.catchTag("ResolveError", (e) => Effect.succeed(Either.left(e)))
        )
        if (result._tag === "Right") applied.push(result.right)
        else if (targets.length === 1 && request.selection._tag === "Line") return yield* Effect.fail(result.left)
        else {
          refused.push({ line: row.line, refusal: result.left.refusal })
          // The lease is lost: no further row of the decision may be touched.
          if (result.left.refusal._tag === "LeaseLost") break
        }
      }
    }

    const after = yield* readRows(accountId, batchId)
    const byIdx = new Map(after.map((r) => [r.idx, r]))
    const shownRows = request.selection._tag === "NeedingPerson" ? after.filter(needsPerson) : targets.map((r) => byIdx.get(r.idx) ?? r)
    const rows = yield* Effect.forEach(shownRows, (r) => evidenceOf(accountId, batchId, r))
    const alarm = yield* mirror.accountAlarm(accountId)
    return {
      batchId,
      accountAlarm: Option.match(alarm, { onNone: () => undefined, onSome: (a) => a.reason }),
      listingCleared,
      incompleteDays: [...synced.incomplete.keys()],
      decision: decision._tag === "Show" ? undefined : { kind: decision._tag, lines: targets.map((r) => r.line), declined },
      applied,
      refused,
      rows,
      stillOpen: after.filter(needsPerson).map((r) => ({ line: r.line, state: r.state, amountMinor: r.amountMinor, currency: r.currency })),
      claimed: after.filter((r) => r.state === "submitting").map((r) => r.line)
    } satisfies ResolveOutcome
  })
}, Effect.scoped)
