/**
 * What `payouts resolve` shows of a row (DESIGN 7): whether it needs a person (unknown, or under an
 * alarm) and why, since when, the listed payouts carrying its token, those of the same amount and
 * currency without a readable token (to check by hand), and its events.
 */
import { Chunk, Clock, DateTime, Effect, Stream } from "effect"
import type { AccountId, BatchId } from "../domain/Ids.ts"
import { maskPhone } from "../domain/Phone.ts"
import { carriesToken } from "../domain/Token.ts"
import type { MirroredPayout } from "../store/MirrorModel.ts"
import { needsPerson, type Row, type RowEvent } from "../store/Model.ts"
import { MirrorStore } from "../store/Sql/Mirror.ts"
import { Rows } from "../store/Sql/Reads.ts"
import { DAY_MS, daysBetween } from "./ListingDays.ts"

export interface RowEvidence {
  readonly line: number
  readonly id: string | null
  readonly token: string
  readonly amountMinor: number | null
  readonly currency: string
  /** Masked. */
  readonly phone: string
  readonly state: string
  readonly alarm: string | null
  readonly reference: string | null
  /** Unknown or under alarm: only a person settles it. */
  readonly needsPerson: boolean
  /** Why it waits for a person, in a line. */
  readonly why: string
  /** Since when (epoch ms): its request ended without a proof, or its last change. */
  readonly since: number
  /** Listed payouts whose description starts with the row's token (any amount). */
  readonly carrying: ReadonlyArray<MirroredPayout>
  /** Listed payouts of the same amount and currency without a readable token, around the intent. */
  readonly possible: ReadonlyArray<MirroredPayout>
  readonly events: ReadonlyArray<RowEvent>
}

const whyOf = (row: Row): string => {
  if (row.alarm !== null) return row.alarm
  if (row.state === "unknown") return `outcome unknown${row.error === null ? "" : ` (${row.error})`}: nothing proves it paid or not`
  return row.error ?? "-"
}

export const evidenceOf = Effect.fn("Resolve.evidence")(function* (accountId: AccountId, batchId: BatchId, row: Row) {
  const [mirror, reads] = yield* Effect.all([MirrorStore, Rows])
  const carrying = (yield* mirror.mirrorByTokens(accountId, [row.token])).filter((p) => carriesToken(p.description, row.token))
  const intent = row.intentAt === null ? yield* Clock.currentTimeMillis : DateTime.toEpochMillis(row.intentAt)
  const days = daysBetween(intent - DAY_MS, intent + 2 * DAY_MS)
  const possible = Chunk.toReadonlyArray(
    yield* mirror.mirrorOfDays(accountId, days[0], days[days.length - 1]).pipe(
      Stream.filter((p) => p.token === null && p.currency === row.currency && p.amountMinor === row.amountMinor),
      Stream.take(20),
      Stream.runCollect
    )
  )
  const events = yield* reads.events(accountId, batchId, row.idx)
  return {
    line: row.line,
    id: row.rowId,
    token: row.token,
    amountMinor: row.amountMinor,
    currency: row.currency,
    phone: maskPhone(row.phone),
    state: row.state,
    alarm: row.alarm,
    reference: row.reference,
    needsPerson: needsPerson(row),
    why: row.alarm === null && row.state === "unknown" && carrying.length > 0
      ? `outcome unknown; ${carrying.map((p) => p.reference).join(", ")} carries its token: adopt it (--adopt REFERENCE) after checking`
      : whyOf(row),
    since: DateTime.toEpochMillis(row.endedAt ?? row.updatedAt),
    carrying,
    possible,
    events
  } satisfies RowEvidence
})
