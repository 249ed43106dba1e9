/**
 * Guards: ceilings on a mistake (issue 12, item 13). A payout above `--max-payout`, a batch above
 * `--max-batch-total`, an account above `--daily-cap` over the last 24 hours, or a phone paid more
 * than `--phone-daily-limit` times in 24 hours is refused at intake (like an invalid row) and, checked
 * again right before each POST, skipped with the guard named. The rules are pure; the intake check and
 * the runner's book below add the figures the state store holds for the account's other batches.
 */
import { Clock, Effect, Stream } from "effect"
import { formatAmount } from "../domain/Money.ts"
import type { Row, StoreError } from "../store/Model.ts"
import { MAY_HAVE_PAID_STATES } from "../store/RowState.ts"
import { AccountRecords } from "../store/Sql/Account.ts"
import { Rows } from "../store/Sql/Reads.ts"
import type { AccountId, BatchId } from "../domain/Ids.ts"

export interface GuardSettings {
  /** Currency -> the largest single payout, in minor units. */
  readonly maxPayout: Readonly<Record<string, number>>
  /** Currency -> the largest total of one batch, in minor units. */
  readonly maxBatchTotal: Readonly<Record<string, number>>
  /** Currency -> the most the account may send over the last 24 hours, every batch, in minor units. */
  readonly dailyCap: Readonly<Record<string, number>>
  /** The most payouts one phone may receive over the last 24 hours, every batch. */
  readonly phoneDailyLimit: number | undefined
}

export const NO_GUARDS: GuardSettings = { maxPayout: {}, maxBatchTotal: {}, dailyCap: {}, phoneDailyLimit: undefined }

/**
 * The daily figures are over the last 24 hours (rolling), not the UTC day: a batch at 23:59 and
 * another at 00:01 would otherwise get twice the cap.
 */
export const GUARD_WINDOW_MS = 24 * 60 * 60 * 1000

/** How old the store's figures may be when a row is checked before its POST. */
export const GUARD_FIGURES_MAX_AGE_MS = 1_000

export const guardsActive = (g: GuardSettings) =>
  Object.keys(g.maxPayout).length + Object.keys(g.maxBatchTotal).length + Object.keys(g.dailyCap).length > 0 || g.phoneDailyLimit !== undefined

export interface GuardedRow {
  readonly currency: string
  readonly amountMinor: number
  readonly phone: string
}

/** What already counts against the guards: this batch's total, the account's 24 hours, per phone. */
export interface Figures {
  readonly batch: Map<string, number>
  readonly day: Map<string, number>
  readonly phones: Map<string, number>
}

export const emptyFigures = (): Figures => ({ batch: new Map(), day: new Map(), phones: new Map() })

export interface Breach {
  readonly guard: "max-payout" | "max-batch-total" | "daily-cap" | "phone-daily-limit"
  /** The CSV column the breach is about (errors file). */
  readonly column: "amount" | "phone"
  /** Starts with a word, not the flag: a cell starting with "-" would be quoted in the CSV files. */
  readonly reason: string
}

/** The first guard this row would break on top of `figures`, if any. */
export const breach = (g: GuardSettings, figures: Figures, row: GuardedRow): Breach | undefined => {
  const money = (minor: number) => `${formatAmount(minor, row.currency)} ${row.currency}`
  const max = g.maxPayout[row.currency]
  if (max !== undefined && row.amountMinor > max) {
    return { guard: "max-payout", column: "amount", reason: `over --max-payout: ${money(row.amountMinor)} is above the limit of ${money(max)} per payout` }
  }
  const batchMax = g.maxBatchTotal[row.currency]
  const batch = (figures.batch.get(row.currency) ?? 0) + row.amountMinor
  if (batchMax !== undefined && batch > batchMax) {
    return { guard: "max-batch-total", column: "amount", reason: `over --max-batch-total: this row would bring the batch to ${money(batch)}, above the limit of ${money(batchMax)}` }
  }
  const cap = g.dailyCap[row.currency]
  const day = (figures.day.get(row.currency) ?? 0) + row.amountMinor
  if (cap !== undefined && day > cap) {
    return { guard: "daily-cap", column: "amount", reason: `over --daily-cap: this row would bring the account's payouts of the last 24 hours to ${money(day)}, above the cap of ${money(cap)}` }
  }
  const payouts = (figures.phones.get(row.phone) ?? 0) + 1
  if (g.phoneDailyLimit !== undefined && payouts > g.phoneDailyLimit) {
    return {
      guard: "phone-daily-limit",
      column: "phone",
      reason: `over --phone-daily-limit: this would be payout ${payouts} to this phone in the last 24 hours, above the limit of ${g.phoneDailyLimit}`
    }
  }
  return undefined
}

const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n)

/** Counts a row that may go (it passed every guard). */
export const count = (figures: Figures, row: GuardedRow) => {
  add(figures.batch, row.currency, row.amountMinor)
  add(figures.day, row.currency, row.amountMinor)
  add(figures.phones, row.phone, 1)
}

/**
 * Intake: checks a new file's valid rows in file order against the guards, on top of what the account
 * sent (or may have) over the last 24 hours. A row over a guard is not counted, so the rows after it
 * are judged on what would really be paid.
 */
export const makeIntakeGuards = (accountId: AccountId, g: GuardSettings) =>
  Effect.gen(function* () {
    const records = yield* AccountRecords
    const since = (yield* Clock.currentTimeMillis) - GUARD_WINDOW_MS
    const figures = emptyFigures()
    const knownPhones = new Set<string>()
    let dayLoaded = false

    /** One breach (or none) per row, in order; the rows are valid rows of one group of the file. */
    const check = (rows: ReadonlyArray<GuardedRow>) =>
      Effect.gen(function* () {
        if (rows.length === 0 || !guardsActive(g)) return rows.map(() => undefined)
        if (!dayLoaded && Object.keys(g.dailyCap).length > 0) {
          for (const t of yield* records.sentTotalsSince(accountId, since)) add(figures.day, t.currency, t.amountMinor)
        }
        dayLoaded = true
        if (g.phoneDailyLimit !== undefined) {
          const fresh = [...new Set(rows.map((r) => r.phone))].filter((p) => !knownPhones.has(p))
          for (const p of yield* records.phonePayoutsSince(accountId, fresh, since)) add(figures.phones, p.phone, p.payouts)
          for (const p of fresh) knownPhones.add(p)
        }
        return rows.map((row) => {
          const broken = breach(g, figures, row)
          if (broken === undefined) count(figures, row)
          return broken
        })
      })
    return { check }
  })

/**
 * The runner's book, for the check right before each POST. It keeps the store's figures (at most
 * GUARD_FIGURES_MAX_AGE_MS old, one query per refresh, not per POST) minus the rows claimed and not yet
 * decided (they are `submitting` in the store already), plus the rows it let go since. Every error
 * in it overestimates, never under: a row let go but not sent, or skipped but not yet written, counts
 * until the next refresh. Two runners deciding within the same second may each miss the other's newest
 * rows; the guards are a ceiling on a mistake, not a lock.
 */
export interface GuardBook {
  /** Rows just claimed by this runner (their POST is to be decided). */
  readonly claimed: (rows: ReadonlyArray<Row>) => Effect.Effect<void>
  /**
   * Right before the POST: the guard the row would break (it is then not sent), or none (it is
   * counted). Fails when the store's figures cannot be read: the row is then not sent either.
   */
  readonly admit: (row: Row) => Effect.Effect<Breach | undefined, StoreError>
  /** A claimed row that leaves without a POST (released, skipped). */
  readonly drop: (idx: number) => Effect.Effect<void>
}

const guardedOf = (row: Row): GuardedRow => ({ currency: row.currency, amountMinor: row.amountMinor ?? 0, phone: row.phone })

export const makeGuardBook = (accountId: AccountId, batchId: BatchId, g: GuardSettings) =>
  Effect.gen(function* () {
    const records = yield* AccountRecords
    const reads = yield* Rows
    const lock = yield* Effect.makeSemaphore(1)
    const pending = new Map<number, GuardedRow>()
    const admitted = new Set<number>()
    const figures = emptyFigures()
    const knownPhones = new Set<string>()
    const needsDay = Object.keys(g.dailyCap).length > 0 || g.phoneDailyLimit !== undefined
    let refreshedAt = Number.NEGATIVE_INFINITY
    let batchLoaded = false

    const refresh = (now: number, phone: string) =>
      Effect.gen(function* () {
        const since = now - GUARD_WINDOW_MS
        figures.day.clear()
        figures.phones.clear()
        knownPhones.clear()
        if (Object.keys(g.dailyCap).length > 0) {
          for (const t of yield* records.sentTotalsSince(accountId, since)) add(figures.day, t.currency, t.amountMinor)
        }
        if (g.phoneDailyLimit !== undefined) {
          const phones = [...new Set([phone, ...[...pending.values()].map((r) => r.phone)])]
          for (const p of yield* records.phonePayoutsSince(accountId, phones, since)) add(figures.phones, p.phone, p.payouts)
          for (const p of phones) knownPhones.add(p)
        }
        for (const r of pending.values()) {
          add(figures.day, r.currency, -r.amountMinor)
          add(figures.phones, r.phone, -1)
        }
        refreshedAt = now
      })

    // What this batch sent (or may have) in earlier runs and so far in this one.
    const loadBatch = reads.streamRowsInStates(accountId, batchId, MAY_HAVE_PAID_STATES).pipe(
      Stream.filter((r) => !pending.has(r.idx) && !admitted.has(r.idx)),
      Stream.runForEach((r) => Effect.sync(() => add(figures.batch, r.currency, r.amountMinor ?? 0)))
    )

    const admit = (row: Row) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          // A row sent again after a refusal before it reached the service (429, not sent) counts once.
          if (admitted.has(row.idx)) return undefined
          const now = yield* Clock.currentTimeMillis
          const stale = now - refreshedAt > GUARD_FIGURES_MAX_AGE_MS
          if (needsDay && (stale || (g.phoneDailyLimit !== undefined && !knownPhones.has(row.phone)))) yield* refresh(now, row.phone)
          if (!batchLoaded && Object.keys(g.maxBatchTotal).length > 0) yield* loadBatch
          batchLoaded = true
          const guarded = guardedOf(row)
          const broken = breach(g, figures, guarded)
          if (broken !== undefined) return broken
          pending.delete(row.idx)
          admitted.add(row.idx)
          count(figures, guarded)
          return undefined
        })
      )

    const book: GuardBook = guardsActive(g)
      ? {
          claimed: (rows) => Effect.sync(() => rows.forEach((r) => pending.set(r.idx, guardedOf(r)))),
          admit,
          drop: (idx) => Effect.sync(() => void pending.delete(idx))
        }
      : { claimed: () => Effect.void, admit: () => Effect.succeed(undefined), drop: () => Effect.void }
    return book
  })
