/**
 * The independent money journal: every movement is one entry of signed deltas (minor units) on a
 * wallet's balance, pending and reserved figures. Each kind may move only certain figures, in one
 * direction, so money can be created only by an adjustment (or, later, a customer's pay-in).
 */
export type EntryKind = "adjustment" | "reserve" | "release" | "complete" | "refund" | "payin" | "settle" | "payin_refund"

export interface Movement {
  readonly kind: EntryKind
  readonly reference: string
  readonly currency: string
  readonly balance: number
  readonly pending: number
  readonly reserved: number
}

export interface JournalEntry extends Movement {
  readonly seq: number
  readonly at: number
}

export interface Figures {
  balance: number
  pending: number
  reserved: number
}

export const zero = (): Figures => ({ balance: 0, pending: 0, reserved: 0 })

/** The journal's sums per key (a currency, a transaction reference). */
const sumBy = (entries: ReadonlyArray<Movement>, key: (e: Movement) => string): Map<string, Figures> => {
  const sums = new Map<string, Figures>()
  for (const e of entries) {
    const f = sums.get(key(e)) ?? zero()
    f.balance += e.balance
    f.pending += e.pending
    f.reserved += e.reserved
    sums.set(key(e), f)
  }
  return sums
}

export const sumByCurrency = (entries: ReadonlyArray<Movement>) => sumBy(entries, (e) => e.currency)

export const sumByReference = (entries: ReadonlyArray<Movement>) => sumBy(entries, (e) => e.reference)

const isInt = (n: number) => Number.isSafeInteger(n)

/** Why an entry breaks the rules of its kind, or undefined when it is well formed. */
export const entryViolation = (e: Movement): string | undefined => {
  const { balance: b, pending: p, reserved: r } = e
  if (![b, p, r].every(isInt)) return "moves a non-integer amount"
  const ok = (() => {
    switch (e.kind) {
      case "adjustment":
        return b !== 0 && p === 0 && r === 0
      case "reserve":
        return r > 0 && b === 0 && p === 0
      case "release":
        return r < 0 && b === 0 && p === 0
      case "complete":
        return b < 0 && b === r && p === 0
      case "refund":
        return b > 0 && p === 0 && r === 0
      case "payin":
        return p > 0 && b === 0 && r === 0
      case "settle":
        return p < 0 && b === -p && r === 0
      case "payin_refund":
        return b <= 0 && p <= 0 && b + p < 0 && r === 0
    }
  })()
  return ok ? undefined : `${e.kind} entry for ${e.reference} moves balance ${b}, pending ${p}, reserved ${r}`
}
