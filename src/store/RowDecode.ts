/**
 * Rows read back from the store, checked column by column in plain code before the schema is asked.
 * A run of 4,000 payouts decoded 20,001 rows (each row about five times: its claim and the full reads
 * behind the ledger and the report), and `Row`'s schema made about 16 KB of garbage a row (a fifth of
 * every byte the run allocated, in a sampled allocation profile) and took 3 us once warm, against 1
 * here. `quickRow` answers only "this is the row, exactly as the schema would decode it" or "not
 * sure"; on any doubt the whole read goes through `Row`'s schema, which alone words the error.
 * `test/store/RowDecode.test.ts` holds the two to the same answers on hostile input.
 */
import { DateTime, Option } from "effect"
import type { Row } from "./Model.ts"
import { ROW_STATES, type RowState } from "./RowState.ts"

const STATES: ReadonlySet<unknown> = new Set(ROW_STATES)

// Set by any column check that is not sure; read once the row is built. (One row at a time, and no
// check yields: a plain flag is enough, and cheaper than an exception or an Either per column.)
let doubt = false
const unsure = <A>(placeholder: A): A => {
  doubt = true
  return placeholder
}

const text = (value: unknown): string => (typeof value === "string" ? value : unsure(""))
const textOrNull = (value: unknown): string | null => (value === null ? null : text(value))
/** `Schema.Int`: a safe integer. */
const int = (value: unknown): number => (typeof value === "number" && Number.isSafeInteger(value) ? value : unsure(0))
const intOrNull = (value: unknown): number | null => (value === null ? null : int(value))
const EPOCH = DateTime.unsafeMake(0)
/** `Schema.DateTimeUtcFromNumber`: any number a Date accepts. */
const millis = (value: unknown): DateTime.Utc => {
  if (typeof value !== "number") return unsure(EPOCH)
  const at = DateTime.make(value)
  return Option.isSome(at) && DateTime.isUtc(at.value) ? at.value : unsure(EPOCH)
}
const millisOrNull = (value: unknown): DateTime.Utc | null => (value === null ? null : millis(value))
const state = (value: unknown): RowState => (STATES.has(value) ? (value as RowState) : unsure("validated"))

const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return unsure(undefined)
  try {
    return JSON.parse(value)
  } catch {
    return unsure(undefined)
  }
}
/** `parseJson(Record(String, String))`: a plain object of strings (a `__proto__` key goes to the schema). */
const details = (value: unknown): Record<string, string> => {
  const object = parsed(value)
  if (typeof object !== "object" || object === null || Array.isArray(object) || Object.hasOwn(object, "__proto__")) return unsure({})
  for (const key of Object.keys(object)) text((object as Record<string, unknown>)[key])
  return object as Record<string, string>
}
/** `NullOr(parseJson(Array(String)))`. */
const candidates = (value: unknown): ReadonlyArray<string> | null => {
  if (value === null) return null
  const list = parsed(value)
  if (!Array.isArray(list)) return unsure(null)
  for (const item of list) text(item)
  return list as ReadonlyArray<string>
}

/** One row as `Row`'s schema decodes it (the same fields, in its order), or undefined when not sure. */
export const quickRow = (raw: unknown): Row | undefined => {
  if (typeof raw !== "object" || raw === null) return undefined
  const r = raw as Record<string, unknown>
  doubt = false
  const row = {
    accountId: text(r.accountId),
    batchId: text(r.batchId),
    idx: int(r.idx),
    line: int(r.line),
    rowId: textOrNull(r.rowId),
    token: text(r.token),
    repeatKey: textOrNull(r.repeatKey),
    operator: text(r.operator),
    currency: text(r.currency),
    amountMinor: intOrNull(r.amountMinor),
    phone: text(r.phone),
    name: text(r.name),
    email: text(r.email),
    description: text(r.description),
    details: details(r.details),
    state: state(r.state),
    reference: textOrNull(r.reference),
    feeMinor: intOrNull(r.feeMinor),
    attempts: int(r.attempts),
    error: textOrNull(r.error),
    intentAt: millisOrNull(r.intentAt),
    submittedAt: millisOrNull(r.submittedAt),
    updatedAt: millis(r.updatedAt),
    finalAt: millisOrNull(r.finalAt),
    endedAt: millisOrNull(r.endedAt),
    resends: int(r.resends),
    alarm: textOrNull(r.alarm),
    candidates: candidates(r.candidates),
    intentOwner: textOrNull(r.intentOwner)
  }
  return doubt ? undefined : (row as Row)
}

/** Every row quickly, or undefined when any one is not sure (then the caller decodes them all with the schema). */
export const quickRows = (raws: ReadonlyArray<unknown>): ReadonlyArray<Row> | undefined => {
  const out: Array<Row> = new Array(raws.length)
  for (let i = 0; i < raws.length; i++) {
    const row = quickRow(raws[i])
    if (row === undefined) return undefined
    out[i] = row
  }
  return out
}
